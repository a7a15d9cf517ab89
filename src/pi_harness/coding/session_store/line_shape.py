"""The little of a session line the scan decodes (``deferred.py``); imported only for large files.

``msgspec`` validates the whole line but builds only these fields, skipping the rest: that is
what makes scanning a long session several times cheaper than parsing it. (No ``from __future__
import annotations`` here: msgspec reads the field types at class creation.)
"""

import msgspec


class LineRole(msgspec.Struct):
    role: object = None


class LineShape(msgspec.Struct):
    type: object = None
    id: object = None
    parentId: object = msgspec.UNSET
    message: LineRole | None = None


decode_line = msgspec.json.Decoder(LineShape).decode
DecodeError = msgspec.DecodeError
