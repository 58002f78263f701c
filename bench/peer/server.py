"""A Mandolin-style peer for `./loupe bench compare`: FastAPI + Pillow thumbnails + yara-python.

It does per request what Mandolin does (upload spooled to a temp file, Pillow opens the file,
EXIF transpose, one ImageOps strategy, PNG out; YARA rules compiled on every call, then matched
against a temp file), so Loupe is compared with the service it replaces, not with a tuned one.
Debian's Pillow 9.4 has no ImageOps.cover: `cover_size` gives Pillow 11's cover geometry.
"""
import tempfile
from io import BytesIO
from typing import Optional

import yara
from fastapi import FastAPI, Form, HTTPException, Query, UploadFile
from fastapi.responses import Response
from PIL import Image, ImageOps

app = FastAPI()

STRATEGIES = ("pad", "fit", "cover", "contain")


@app.get("/")
def root() -> dict:
    return {"msg": "peer"}


def cover_size(image: Image.Image, box: tuple) -> tuple:
    """Smallest size keeping the aspect ratio that covers `box` (one side equals the box side)."""
    box_w, box_h = box
    if image.width * box_h == image.height * box_w:
        return box
    if image.width * box_h < image.height * box_w:
        return box_w, round(image.height / image.width * box_w)
    return round(image.width / image.height * box_h), box_h


def thumbnail_png(path: str, width: int, height: int, strategy: str, color: Optional[str]) -> bytes:
    out = BytesIO()
    with Image.open(path) as im:
        # Mandolin transposes in place (Pillow 11); Pillow 9.4 only returns a copy, so it is
        # asked only when there is an orientation to apply, as in place costs nothing otherwise.
        if im.getexif().get(0x0112, 1) != 1:
            im = ImageOps.exif_transpose(im)
        box = (width, height)
        if strategy == "pad":
            thumb = ImageOps.pad(im, box, color=color)
        elif strategy == "fit":
            thumb = ImageOps.fit(im, box)
        elif strategy == "contain":
            thumb = ImageOps.contain(im, box)
        else:
            thumb = im.resize(cover_size(im, box), resample=Image.Resampling.BICUBIC)
        thumb.save(out, format="PNG")
    return out.getvalue()


def spool(file: UploadFile) -> "tempfile._TemporaryFileWrapper":
    """Copies the upload into a named temp file, as Mandolin does before opening it."""
    tmp = tempfile.NamedTemporaryFile("wb", suffix=file.filename or "")
    tmp.write(file.file.read())
    tmp.flush()
    return tmp


# `async def` with blocking work inside, like Mandolin: one request at a time per worker process.
@app.post("/converter/thumbnail")
async def thumbnail(
    file: UploadFile,
    width: int = Query(300, gt=0),
    height: int = Query(200, gt=0),
    strategy: str = Query("pad"),
    color: Optional[str] = Query(None),
) -> Response:
    if strategy not in STRATEGIES:
        raise HTTPException(status_code=422, detail="unknown strategy")
    try:
        with spool(file) as tmp:
            png = thumbnail_png(tmp.name, width, height, strategy, color)
    finally:
        file.file.close()
    return Response(content=png, media_type="image/png")


def string_hits(match) -> list:
    """yara-python ≥ 4.3 gives StringMatch objects; Debian's 4.2 gives (offset, identifier, bytes) tuples."""
    if match.strings and isinstance(match.strings[0], tuple):
        grouped: dict = {}
        for offset, identifier, data in match.strings:
            grouped.setdefault(identifier, []).append({"offset": offset, "matched_length": len(data)})
        return [{"identifier": k, "instances": v} for k, v in grouped.items()]
    return [
        {"identifier": s.identifier, "instances": [{"offset": i.offset, "matched_length": i.matched_length} for i in s.instances]}
        for s in match.strings
    ]


def match_list(matches: list) -> list:
    result = []
    for m in matches:
        strings = string_hits(m)
        result.append(
            {"rule": m.rule, "tags": list(m.tags), "namespace": m.namespace, "meta": m.meta, "strings": strings}
        )
    return result


async def rulematch(file: UploadFile, rules: str) -> dict:
    if not rules.strip():
        raise HTTPException(status_code=400, detail="No Yara rules provided")
    try:
        compiled = yara.compile(source=rules)
    except yara.Error:
        raise HTTPException(status_code=400, detail="Invalid Yara rules")
    # Mandolin writes without flushing before matching, so yara reads a short or empty file for
    # small uploads; the peer flushes, so both sides match the same bytes.
    with spool(file) as tmp:
        matches = compiled.match(tmp.name)
    return {
        "success": True,
        "processors": {"yara": {"success": True, "analysis": {"rules": rules, "matches": match_list(matches)}}},
    }


@app.post("/analyzer/rulematch")
async def analyzer_rulematch(file: UploadFile, rules: str = Form(...)) -> dict:
    return await rulematch(file, rules)


@app.post("/analyzer/yara")
async def analyzer_yara(file: UploadFile, rules: str = Form(...)) -> dict:
    return await rulematch(file, rules)
