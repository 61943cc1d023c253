#!/usr/bin/env python3
"""What another mature parser reads in a message: CPython's `email` package.

For each file named on stdin (one path a line), prints one JSON line with what SPEC C1 says a
helpdesk must keep of it, as CPython decodes it (MIME structure, transfer encodings, charsets,
RFC 2231 names):
  from     the first From address, or null
  tokens   the words (3+ letters or digits, lower-cased) of the message's text: its text/plain
           body parts, or the visible text of its HTML body where a multipart has only HTML
  files    sha256 and size of every part that is a file (attachments, named inline parts,
           non-text inline parts, uuencoded blocks in the text)
  emls     how many forwarded messages (message/rfc822 parts) it holds
  messages how many other message/* parts (external-body, partial) it holds
  htmls    how many HTML bodies it holds
tests/mail-corpus.test.ts compares hxdesk's ticket for the same message with this.
"""
import binascii
import hashlib
import html.parser
import json
import re
import sys
from email import message_from_bytes, policy
from email.utils import getaddresses

TOKEN = re.compile(r"[^\W_]{3,}")
BASE64_LINE = re.compile(rb"^[A-Za-z0-9+/=]*\s*$")
UU_BEGIN = re.compile(r"^begin [0-7]{3,4} (.+?)\s*$")


class Visible(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "title"):
            self.hidden += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title") and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.out.append(data)


def text_of(part):
    raw = part.get_payload(decode=False)
    raw = raw.encode("latin-1", "replace") if isinstance(raw, str) else (raw or b"")
    cte = str(part.get("content-transfer-encoding", "")).strip().lower()
    if cte == "base64" and not all(BASE64_LINE.match(line) for line in raw.splitlines()):
        data = raw  # labelled base64 but is not: the text itself
    else:
        data = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or ""
    for cs in ([charset] if charset and charset not in ("us-ascii", "ascii", "utf-8", "utf8") else []) + ["utf-8", "cp1252"]:
        try:
            return data.decode(cs)
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("latin-1")


def kind(part):
    ctype = part.get_content_type()
    if ctype == "message/rfc822":
        return "eml"
    if part.get_content_maintype() == "message" and ctype != "message/delivery-status":
        return "message"  # external-body, partial …: kept whole as a file (CPython reads them as containers)
    if part.get_content_disposition() == "attachment" or part.get_filename():
        return "file"
    if ctype in ("text/plain", "text/html"):
        return ctype[5:]
    if ctype == "message/delivery-status":
        return "ignore"
    return "file"


def has(part, want):
    if part.is_multipart() and part.get_content_maintype() != "message":
        return any(has(p, want) for p in part.get_payload())
    return kind(part) == want and text_of(part).strip() != ""


def walk(part, out, want_text):
    ctype = part.get_content_type()
    if part.get_content_maintype() == "multipart" and not part.is_multipart():
        # separators that never match: everything is outside the parts
        if want_text:
            add_text(out, part.get_payload() if isinstance(part.get_payload(), str) else "")
        return
    if part.is_multipart() and part.get_content_maintype() != "message":
        kids = part.get_payload()
        chosen = None
        if ctype == "multipart/alternative":
            chosen = next((k for k in reversed(kids) if has(k, "plain")), None)
            if chosen is None:  # (a Message is falsy when it has no headers: compare with None)
                chosen = next((k for k in reversed(kids) if has(k, "html")), None)
        for k in kids:
            walk(k, out, want_text and (ctype != "multipart/alternative" or k is chosen))
        return
    k = kind(part)
    if k == "eml":
        out["emls"] += 1
    elif k == "message":
        out["messages"] += 1
    elif k == "file":
        data = part.get_payload(decode=True) or b""
        out["files"].append({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
    elif k == "plain" and want_text:
        add_text(out, text_of(part))
    elif k == "html" and want_text:
        source = text_of(part)
        if source.strip():
            out["htmls"] += 1
            visible = Visible()
            visible.feed(source)
            visible.close()
            out["tokens"].update(TOKEN.findall(" ".join(visible.out).lower()))


def uu_line(line):
    try:
        return binascii.a2b_uu(line)
    except binascii.Error:
        # as CPython's own uu module does: a line padded past its length byte ("trailing garbage")
        return binascii.a2b_uu(line[: (((ord(line[0]) - 32) & 63) * 4 + 5) // 3])


def add_text(out, text):
    lines, kept, i = text.replace("\r\n", "\n").split("\n"), [], 0
    while i < len(lines):
        begin = UU_BEGIN.match(lines[i])
        if begin:
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "end"), None)
            data = b""
            try:
                for line in lines[i + 1:end] if end else []:
                    if line not in ("", "`", " "):
                        data += uu_line(line)
            except binascii.Error:
                end = None
            if end:
                out["files"].append({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
                i = end + 1
                continue
        kept.append(lines[i])
        i += 1
    out["tokens"].update(TOKEN.findall("\n".join(kept).lower()))


def reference(path):
    with open(path, "rb") as f:
        msg = message_from_bytes(f.read(), policy=policy.compat32)
    senders = [a for _, a in getaddresses([str(v) for v in msg.get_all("from", [])]) if "@" in a]
    out = {"file": path, "from": senders[0].lower() if senders else None, "tokens": set(), "files": [], "emls": 0, "messages": 0, "htmls": 0}
    walk(msg, out, True)
    out["tokens"] = sorted(out["tokens"])
    return out


for line in sys.stdin:
    path = line.rstrip("\n")
    if path:
        try:
            print(json.dumps(reference(path), ensure_ascii=False))
        except Exception as e:  # noqa: BLE001 — a message CPython cannot read is reported, not fatal
            print(json.dumps({"file": path, "error": f"{type(e).__name__}: {e}"}))
