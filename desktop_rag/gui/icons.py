"""The bundled SVG icons, line icons drawn in the palette's text colour (light or dark theme)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QImageReader, QPalette, QPixmap
from PySide6.QtWidgets import QToolButton

_INK = "#000000"  # the colour line icons are drawn in; replaced by the palette's
_SIZES = (16, 20, 24, 32, 48, 64)
# Icons with their own colours (status marks, the app): never recoloured.
FIXED = frozenset({"app", "status-indexed", "status-queued", "status-indexing", "status-failed"})


@cache
def _svg(name: str) -> bytes:
    return (resources.files("desktop_rag.resources") / "icons" / f"{name}.svg").read_bytes()


def _render(data: bytes, size: int, ratio: float) -> QPixmap:
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, QByteArray(b"svg"))
    px = max(1, round(size * ratio))
    reader.setScaledSize(QSize(px, px))
    pixmap = QPixmap.fromImage(reader.read())
    pixmap.setDevicePixelRatio(ratio)
    return pixmap


@cache
def _icon(name: str, ink: str, disabled_ink: str, ratio: float) -> QIcon:
    data = _svg(name)
    icon = QIcon()
    for size in _SIZES:
        if name in FIXED:
            icon.addPixmap(_render(data, size, ratio))
            continue
        normal = data.replace(_INK.encode(), ink.encode())
        icon.addPixmap(_render(normal, size, ratio), QIcon.Mode.Normal)
        muted = data.replace(_INK.encode(), disabled_ink.encode())
        icon.addPixmap(_render(muted, size, ratio), QIcon.Mode.Disabled)
    return icon


def icon(name: str) -> QIcon:
    """A bundled icon; line icons follow the current palette, so call again after a theme
    change."""
    app = QGuiApplication.instance()
    palette = QGuiApplication.palette()
    ink = palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)
    # SVG colours have no alpha here: a disabled icon is the ink blended into the background.
    disabled = _blend(ink, palette.color(QPalette.ColorRole.Window), 0.4)
    ratio = app.devicePixelRatio() if isinstance(app, QGuiApplication) else 1.0
    return _icon(name, ink.name(), disabled.name(), max(1.0, ratio))


def _blend(fg: QColor, bg: QColor, amount: float) -> QColor:
    return QColor(
        round(fg.red() * amount + bg.red() * (1 - amount)),
        round(fg.green() * amount + bg.green() * (1 - amount)),
        round(fg.blue() * amount + bg.blue() * (1 - amount)),
    )


def set_icon(target: Any, name: str) -> None:
    """Give a button or action a bundled icon that `refresh` redraws after a theme change."""
    target.setIcon(icon(name))
    target.setProperty("iconName", name)


def tool_button(
    name: str, text: str, tip: str, *, text_beside: bool = False, accessible: str = ""
) -> QToolButton:
    """A flat toolbar button with a bundled icon, its text (shown beside the icon, or only
    to screen readers), a tooltip, and an accessible name (the text unless given)."""
    button = QToolButton()
    set_icon(button, name)
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(accessible or text)
    if text_beside:
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setAutoRaise(True)
    return button


def refresh(root: QObject) -> None:
    """Redraw every icon set with `set_icon` under root, in the current palette's colours."""
    for obj in [root, *root.findChildren(QObject)]:
        name = obj.property("iconName")
        if name and hasattr(obj, "setIcon"):
            obj.setIcon(icon(str(name)))
