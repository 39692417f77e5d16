"""A small YAML subset reader, used only when PyYAML is not installed.

It reads what vramscope job specs and bench matrices use: block mappings and block lists
(indentation), flow mappings `{a: 1, b: [x, y]}` and flow lists (also spread over several
lines), quoted and plain scalars, and `#` comments. Scalars follow YAML 1.1 as PyYAML reads them for the values that occur here:
true/false/yes/no/on/off are booleans, null/~ is None, integers and decimal floats are numbers,
everything else is a string. Anchors, multi-line strings, tags and multiple documents are not
supported and raise ValueError naming the line.
"""

import re

_BOOLS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def load(text, source="<yaml>"):
    lines, open_flow = [], None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = _strip_comment(raw).rstrip()
        if open_flow is not None:  # a flow collection continued from an earlier line
            start, indent, joined = open_flow
            open_flow = (start, indent, joined + " " + stripped.strip())
            if _depth(open_flow[2]) == 0:
                lines.append(open_flow)
                open_flow = None
            continue
        if stripped.strip() in ("", "---"):
            continue
        entry = (number, len(stripped) - len(stripped.lstrip(" ")), stripped.strip())
        if _depth(entry[2]) > 0:
            open_flow = entry
        else:
            lines.append(entry)
    if open_flow is not None:
        raise ValueError(f"{source}:{open_flow[0]}: unclosed flow collection")
    if not lines:
        return None
    value, end = _block(lines, 0, lines[0][1], source)
    if end != len(lines):
        raise ValueError(f"{source}:{lines[end][0]}: unexpected indentation")
    return value


def scalar(text):
    """Reads one plain or quoted scalar as PyYAML would for the values job specs use."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1].replace('\\"', '"') if t[0] == '"' else t[1:-1].replace("''", "'")
    low = t.lower()
    if low in _BOOLS:
        return _BOOLS[low]
    if low in ("null", "~", ""):
        return None
    if _INT.match(t):
        return int(t)
    if _FLOAT.match(t):
        return float(t)
    return t


def _depth(text):
    """How many '[' / '{' of `text` (outside quotes) are still open at its end."""
    depth, quote = 0, None
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
    return depth


def _strip_comment(line):
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _block(lines, i, indent, source):
    if lines[i][2].startswith("- ") or lines[i][2] == "-":
        return _block_list(lines, i, indent, source)
    return _block_map(lines, i, indent, source)


def _block_map(lines, i, indent, source):
    out = {}
    while i < len(lines) and lines[i][1] == indent:
        number, _, text = lines[i]
        key, sep, rest = _split_key(text)
        if not sep:
            raise ValueError(f"{source}:{number}: expected 'key: value', got {text!r}")
        if key in out:
            raise ValueError(f"{source}:{number}: duplicate key {key!r}")
        i += 1
        if rest:
            out[key] = _flow(rest, source, number)
        elif i < len(lines) and lines[i][1] > indent:
            out[key], i = _block(lines, i, lines[i][1], source)
        elif i < len(lines) and lines[i][1] == indent and lines[i][2].startswith("-"):
            out[key], i = _block_list(lines, i, indent, source)
        else:
            out[key] = None
    return out, i


def _block_list(lines, i, indent, source):
    out = []
    while i < len(lines) and lines[i][1] == indent and lines[i][2].startswith("-"):
        number, _, text = lines[i]
        rest = text[1:].strip()
        i += 1
        if not rest:
            if i < len(lines) and lines[i][1] > indent:
                item, i = _block(lines, i, lines[i][1], source)
                out.append(item)
            else:
                out.append(None)
            continue
        key, sep, value = _split_key(rest)
        if sep and not rest.startswith(("{", "[", '"', "'")):
            # "- key: value" opens a mapping whose further keys are indented past the dash.
            inner = indent + (len(text) - len(rest))
            item = {key: _flow(value, source, number) if value else None}
            if not value and i < len(lines) and lines[i][1] > inner:
                item[key], i = _block(lines, i, lines[i][1], source)
            if i < len(lines) and lines[i][1] == inner:
                more, i = _block_map(lines, i, inner, source)
                item.update(more)
            out.append(item)
        else:
            out.append(_flow(rest, source, number))
    return out, i


def _split_key(text):
    quote = None
    for j, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == ":" and (j + 1 == len(text) or text[j + 1] == " "):
            return scalar(text[:j]), True, text[j + 1:].strip()
    return text, False, ""


def _flow(text, source, number):
    if not text.startswith(("{", "[")):
        return scalar(text)
    value, end = _flow_value(text, 0, source, number)
    if text[end:].strip():
        raise ValueError(f"{source}:{number}: unexpected text after value: {text[end:]!r}")
    return value


def _skip(text, j):
    while j < len(text) and text[j] == " ":
        j += 1
    return j


def _flow_value(text, j, source, number):
    j = _skip(text, j)
    if j < len(text) and text[j] in "{[":
        closing = "}" if text[j] == "{" else "]"
        items = {} if closing == "}" else []
        j = _skip(text, j + 1)
        while j < len(text) and text[j] != closing:
            if closing == "}":
                key, j = _flow_scalar(text, j, ":", source, number)
                if j >= len(text) or text[j] != ":":
                    raise ValueError(f"{source}:{number}: expected ':' in flow mapping")
                items[scalar(key)], j = _flow_value(text, j + 1, source, number)
            else:
                item, j = _flow_value(text, j, source, number)
                items.append(item)
            j = _skip(text, j)
            if j < len(text) and text[j] == ",":
                j = _skip(text, j + 1)
        if j >= len(text):
            raise ValueError(f"{source}:{number}: unclosed '{text[0]}'")
        return items, j + 1
    raw, j = _flow_scalar(text, j, ",]}", source, number)
    return scalar(raw), j


def _flow_scalar(text, j, stops, source, number):
    j = _skip(text, j)
    if j < len(text) and text[j] in "\"'":
        end = text.find(text[j], j + 1)
        if end < 0:
            raise ValueError(f"{source}:{number}: unclosed quote")
        return text[j:end + 1], end + 1
    start = j
    while j < len(text) and not (text[j] in stops and (text[j] != ":" or
                                                       j + 1 >= len(text) or text[j + 1] == " ")):
        j += 1
    return text[start:j].strip(), j
