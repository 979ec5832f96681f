"""The Settings dialog's team library fields: its address and how to reach it, never its keys."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_rag.config import Settings, is_remote
from desktop_rag.errors import StoreError
from desktop_rag.store.remote import Location

TEAM_HINT = QT_TRANSLATE_NOOP(
    "TeamLibraryBox",
    "A library your team keeps on object storage (S3, MinIO, Ceph), searched beside yours and "
    "never written from here; its sources say “Team:”. Keys come from the AWS variables, the "
    "profile named here or the system keyring, and are never saved in these settings.",
)


class TeamLibraryBox(QWidget):
    """The team library's address, and the profile, endpoint and region to reach it with."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.uri = self._field(
            settings.team_library,
            self.tr("s3://bucket/path (empty: none)"),
            self.tr("Team library URI"),
        )
        self.profile = self._field(
            settings.team_profile, self.tr("default profile"), self.tr("Team library AWS profile")
        )
        self.endpoint = self._field(
            settings.team_endpoint,
            self.tr("AWS, or http://nas.office:9000 for MinIO"),
            self.tr("Team library Endpoint"),
        )
        self.region = self._field(
            settings.team_region,
            self.tr("from the profile, or us-east-1"),
            self.tr("Team library Region"),
        )
        hint = QLabel(self.tr(str(TEAM_HINT)))
        hint.setWordWrap(True)  # as readable as the rest: it was drawn disabled, pale
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.tr("Address:"), self.uri)
        form.addRow(self.tr("Profile:"), self.profile)
        form.addRow(self.tr("Endpoint:"), self.endpoint)
        form.addRow(self.tr("Region:"), self.region)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(hint)

    def _field(self, text: str, placeholder: str, name: str) -> QLineEdit:
        edit = QLineEdit(text)
        edit.setPlaceholderText(placeholder)
        edit.setAccessibleName(name)
        edit.setClearButtonEnabled(True)
        return edit

    def values(self) -> dict[str, str]:
        """The Settings fields these edit."""
        return {
            "team_library": self.uri.text().strip().rstrip("/"),
            "team_profile": self.profile.text().strip(),
            "team_endpoint": self.endpoint.text().strip(),
            "team_region": self.region.text().strip(),
        }

    def apply(self, settings: Settings) -> Settings:
        """`settings` with the team library these fields say."""
        v = self.values()
        return replace(
            settings,
            team_library=v["team_library"],
            team_profile=v["team_profile"],
            team_endpoint=v["team_endpoint"],
            team_region=v["team_region"],
        )

    def validate(self) -> str:
        """An error message, or "" when the fields can be used."""
        uri = self.values()["team_library"]
        if uri and not is_remote(uri):
            return self.tr("The team library's address must start with s3:// (not {uri}).").format(
                uri=uri
            )
        if uri:
            try:
                Location.parse(uri)
            except StoreError as exc:  # s3:// without a bucket
                return str(exc)
        endpoint = self.values()["team_endpoint"]
        if endpoint and not endpoint.startswith(("http://", "https://")):
            return self.tr(
                "The team library's endpoint must start with http:// or https:// ({endpoint})."
            ).format(endpoint=endpoint)
        return ""
