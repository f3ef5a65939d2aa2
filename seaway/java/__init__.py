"""Java compatibility: the JDK's parsing and formatting rules that Kafka's behaviour rests on.

Kafka runs on the JVM, so what its converters, transforms and tools read and write follows
Java's rules. Each rule has one implementation here, imported by every caller:

* :mod:`~seaway.java.numbers`: ``Double.toString``/``Float.toString``, float32 rounding,
  primitive narrowing and casts, ``Integer.parseInt``, ``Double.parseDouble``,
  ``Boolean.parseBoolean``, :class:`~seaway.java.numbers.JavaFloat`.
* :mod:`~seaway.java.big_decimal`: ``new BigDecimal(String)``, ``toString``, ``floatValue``.
* :mod:`~seaway.java.strings`: ``String.trim``/``length``, ``Character.digit``,
  ``String.valueOf`` and Java charsets.
* :mod:`~seaway.java.dates`: ``SimpleDateFormat`` patterns;
  :mod:`~seaway.java.gregorian`: lenient numeric date fields as ``GregorianCalendar`` reads them.
* :mod:`~seaway.java.regex`: Java regexes and replacement strings on Python's :mod:`re`.
* :mod:`~seaway.java.hash_map`: ``String.hashCode``, ``Map.hashCode``, ``Objects.hash``
  and the order a ``HashMap`` iterates in.

A leaf package: it imports nothing else of Seaway (a test checks).
"""
