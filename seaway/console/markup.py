"""HTML built safely: every string is escaped unless it is :class:`Markup`.

:func:`tag` and :func:`join` are the only ways the console writes HTML; text put into a page
(a connector's name, a task's trace, a topic) goes through :func:`escape` on the way, so a
name such as ``<script>`` shows as text.

>>> str(tag("td", "<b>", class_="name"))
'<td class="name">&lt;b&gt;</td>'
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Final

__all__ = ["Markup", "escape", "join", "tag"]

_VOID: Final = frozenset({"br", "input", "link", "meta", "hr", "img"})


class Markup(str):
    """HTML already safe to emit as it is (built here, or escaped)."""

    __slots__ = ()


def escape(value: object) -> Markup:
    """*value* as HTML text (``&``, ``<``, ``>``, quotes escaped); Markup stays as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def join(children: object) -> Markup:
    """*children* (Markup, text, numbers, None, or nested iterables of them) as HTML."""
    if children is None:
        return Markup("")
    if isinstance(children, (str, int, float)):
        return escape(children)
    if isinstance(children, Iterable):
        return Markup("".join(join(c) for c in children))
    return escape(children)


def tag(element: str, /, *children: object, **attributes: object) -> Markup:
    """``<element attributes>children</element>``: attribute names with ``_`` for ``-`` (a trailing
    ``_`` dropped: ``class_``); True writes the bare attribute, None and False leave it out."""
    parts = [element]
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        attribute = key.rstrip("_").replace("_", "-")
        parts.append(attribute if value is True else f'{attribute}="{escape(value)}"')
    head = "<" + " ".join(parts) + ">"
    if element in _VOID:
        return Markup(head)
    return Markup(f"{head}{join(children)}</{element}>")
