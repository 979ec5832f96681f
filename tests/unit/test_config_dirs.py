"""Where the index, settings, cache and logs live on Windows, macOS and Linux, with the platform
and its folder lookups faked."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag import config

# SHGetKnownFolderPath's answers for one Windows user (the names platformdirs asks by).
WINDOWS_FOLDERS = {
    "CSIDL_LOCAL_APPDATA": "C:\\Users\\me\\AppData\\Local",
    "CSIDL_APPDATA": "C:\\Users\\me\\AppData\\Roaming",
    "CSIDL_PERSONAL": "C:\\Users\\me\\OneDrive\\Documents",
}


@pytest.fixture
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATA", "CONFIG", "CACHE", "LOG"):
        monkeypatch.delenv(f"DESKTOP_RAG_{name}_DIR", raising=False)


def test_windows_keeps_everything_local_never_in_the_roaming_profile(
    monkeypatch: pytest.MonkeyPatch, no_overrides: None
) -> None:
    import platformdirs.windows

    monkeypatch.setattr(platformdirs.windows, "get_win_folder", WINDOWS_FOLDERS.__getitem__)
    dirs = config.user_dirs("win32")
    win = lambda path: path.replace("/", "\\")  # noqa: E731 - os.path.join is POSIX's here
    local = "C:\\Users\\me\\AppData\\Local\\desktop-rag"
    assert win(dirs.user_data_dir) == local
    assert win(dirs.user_config_dir) == local
    assert win(dirs.user_cache_dir) == local + "\\Cache"
    assert win(dirs.user_log_dir) == local + "\\Logs"
    assert win(dirs.user_documents_dir) == "C:\\Users\\me\\OneDrive\\Documents"


def test_macos_library_folders(
    monkeypatch: pytest.MonkeyPatch, no_overrides: None, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    dirs = config.user_dirs("darwin")
    assert dirs.user_data_dir == f"{tmp_path}/Library/Application Support/desktop-rag"
    assert dirs.user_config_dir == f"{tmp_path}/Library/Application Support/desktop-rag"
    assert dirs.user_cache_dir == f"{tmp_path}/Library/Caches/desktop-rag"
    assert dirs.user_log_dir == f"{tmp_path}/Library/Logs/desktop-rag"


def test_linux_xdg_folders(
    monkeypatch: pytest.MonkeyPatch, no_overrides: None, tmp_path: Path
) -> None:
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config.default_data_dir() == tmp_path / ".local/share/desktop-rag"
    assert config.config_dir() == tmp_path / ".config/desktop-rag"
    assert config.cache_dir() == tmp_path / ".cache/desktop-rag"
    assert config.log_dir() == tmp_path / ".local/state/desktop-rag/log"


def test_the_app_asks_the_running_platform(
    monkeypatch: pytest.MonkeyPatch, no_overrides: None
) -> None:
    import platformdirs.windows

    monkeypatch.setattr(platformdirs.windows, "get_win_folder", WINDOWS_FOLDERS.__getitem__)
    monkeypatch.setattr(config.sys, "platform", "win32")
    assert str(config.default_data_dir()).endswith("desktop-rag")
    assert str(config.cache_dir()).startswith("C:\\Users\\me\\AppData\\Local")
