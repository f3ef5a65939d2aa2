"""Security building blocks shared by the broker, Seaway's own Kafka client and the Connect
REST API: JAAS configuration (:mod:`.jaas`) and the SASL mechanisms PLAIN and SCRAM
(:mod:`.sasl`, :mod:`.scram`). This package imports nothing of Seaway above ``config``."""
