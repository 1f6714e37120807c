"""Calibrate: capture the calibration photo, show what was found, confirm or retry, save.

The photo comes from the table's camera or an upload (a phone picture). The proposed profile is
kept in memory until the director confirms it; saving writes the profile file and hands it to the
tracker, which reads the next picture with it.
"""
from __future__ import annotations

import secrets
import threading

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, session, url_for

from engines.errors import ArbiterError
from vision.io import decode_image
from vision import overlay_drawer, recognize
from webui.companion import encode_jpeg
from webui.games import web_game
from webui.routes.table import companion
from webui.security import director_required

bp = Blueprint("calibrate", __name__)

# Each browser has its own proposal awaiting confirmation: a new capture replaces it. Only the
# latest few browsers' proposals are kept.
_pending_lock = threading.Lock()
PROPOSALS_KEPT = 8


def pending() -> dict:
    """This browser's proposal awaiting confirmation (token, profile, preview, summary), or {}."""
    proposals = current_app.extensions.setdefault("arbiter_calibration", {})
    browser = session.setdefault("calibration_id", secrets.token_urlsafe(8))
    if browser not in proposals:
        while len(proposals) >= PROPOSALS_KEPT:
            proposals.pop(next(iter(proposals)))
        proposals[browser] = {}
    return proposals[browser]


def calibration_findings(game: str, summary: dict) -> list[str]:
    """What the calibration found, in the players' words (the game's own part of the pages)."""
    part = web_game(game)
    return part.calibration_findings(summary) if part is not None else []


def calibrator():
    """What the composition root handed the app to calibrate with (None: calibration is off)."""
    found = current_app.extensions.get("arbiter_calibrator")
    if found is None:
        raise ArbiterError("this companion was started without calibration")
    return found


def preview_jpeg(game: str, image, profile: dict) -> bytes:
    """The photo with what the new profile recognises in it drawn over."""
    draw = overlay_drawer(game)
    if draw is not None:
        image = draw(image, recognize(image, profile))
    return encode_jpeg(image, width=960, quality=80)


@bp.get("/calibrate")
def page():
    with _pending_lock:
        proposal = dict(pending())
    return render_template("calibrate.html", proposal=proposal,
                           profile_path=current_app.config["ARBITER_PROFILE_PATH"])


@bp.post("/calibrate/capture")
@director_required
def capture():
    table = companion()
    upload = request.files.get("photo")
    if upload is not None and upload.filename:
        image = decode_image(upload.read())
    else:
        image = table.still_picture()
        if image is None:
            raise ArbiterError("the camera has not delivered a picture yet: wait a moment or upload a photo")
    try:
        profile = calibrator().calibrate(image)
    except ArbiterError as exc:
        flash(f"Calibration failed: {exc}. Check the set-up and try again.", "error")
        return redirect(url_for("calibrate.page"), code=303)
    with _pending_lock:
        pending().clear()
        pending().update(token=secrets.token_urlsafe(8), profile=profile,
                        preview=preview_jpeg(table.game, image, profile),
                        summary=profile.get("summary", {}),
                        findings=calibration_findings(table.game, profile.get("summary", {})))
    return redirect(url_for("calibrate.page"), code=303)


@bp.get("/calibrate/preview/<token>.jpg")
def preview(token: str):
    with _pending_lock:
        if pending().get("token") != token:
            abort(404, description="no such calibration preview (retried or saved since)")
        return Response(pending()["preview"], mimetype="image/jpeg")


@bp.post("/calibrate/confirm")
@director_required
def confirm():
    with _pending_lock:
        if pending().get("token") != request.form.get("token"):
            raise ArbiterError("this calibration was replaced or already saved: capture again")
        profile = pending()["profile"]
        pending().clear()
    path = current_app.config["ARBITER_PROFILE_PATH"]
    if path:
        calibrator().save(profile, path)
    companion().tracker.profile = profile
    flash(f"Profile saved{' to ' + path if path else ''}; the table now reads with it.")
    return redirect(url_for("calibrate.page"), code=303)


@bp.post("/calibrate/retry")
@director_required
def retry():
    with _pending_lock:
        pending().clear()
    return redirect(url_for("calibrate.page"), code=303)
