#!/bin/sh
# Install Desktop RAG for the current user from this folder (the unpacked app):
#   the app        ${PREFIX:-~/.local}/lib/desktop-rag/  (linked as $PREFIX/bin/desktop-rag)
#   a menu entry   ${XDG_DATA_HOME:-~/.local/share}/applications/desktop-rag.desktop
#   the icon       ${XDG_DATA_HOME:-~/.local/share}/icons/hicolor/{scalable,256x256}/apps/
# `install.sh --uninstall` removes exactly these; your index, settings and documents stay.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
prefix=${PREFIX:-$HOME/.local}
app_dir=$prefix/lib/desktop-rag
bin_link=$prefix/bin/desktop-rag
desktop_file=$data_home/applications/desktop-rag.desktop
icons=$data_home/icons/hicolor
icon_svg=$icons/scalable/apps/desktop-rag.svg
icon_png=$icons/256x256/apps/desktop-rag.png

is_app() { [ -x "$1/desktop-rag" ] && [ -d "$1/_internal" ]; }

refresh() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$data_home/applications" 2>/dev/null || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$icons/index.theme" ]; then
        gtk-update-icon-cache -q -t "$icons" 2>/dev/null || true
    fi
}

# The X11 libraries Qt's xcb plugin loads (desktop_rag/infra/display.py keeps the same list
# and says the same when the window starts): Qt's own message names only the first.
XCB_LIBS="libxcb-cursor.so.0:libxcb-cursor0 libxcb-icccm.so.4:libxcb-icccm4
libxcb-keysyms.so.1:libxcb-keysyms1 libxcb-image.so.0:libxcb-image0
libxcb-randr.so.0:libxcb-randr0 libxcb-render-util.so.0:libxcb-render-util0
libxcb-render.so.0:libxcb-render0 libxcb-shape.so.0:libxcb-shape0 libxcb-shm.so.0:libxcb-shm0
libxcb-sync.so.1:libxcb-sync1 libxcb-util.so.1:libxcb-util1 libxcb-xfixes.so.0:libxcb-xfixes0
libxcb-xkb.so.1:libxcb-xkb1 libxcb.so.1:libxcb1 libxkbcommon-x11.so.0:libxkbcommon-x11-0
libxkbcommon.so.0:libxkbcommon0"

check_display() {
    ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
    [ -x "$ldconfig" ] || return 0
    known=$("$ldconfig" -p 2>/dev/null) || return 0
    missing=""
    for pair in $XCB_LIBS; do
        lib=${pair%%:*}
        case $known in
            *"$lib "*) ;;
            *) [ -e "$app_dir/_internal/$lib" ] || missing="$missing ${pair#*:}" ;;
        esac
    done
    if [ -n "$missing" ]; then
        echo "The window needs X11 libraries this system lacks. On Debian or Ubuntu:"
        echo "    sudo apt-get install$missing"
    fi
}

uninstall() {
    rm -f "$desktop_file" "$icon_svg" "$icon_png"
    if [ -L "$bin_link" ]; then rm -f "$bin_link"; fi
    if is_app "$app_dir"; then
        rm -rf "$app_dir"
    elif [ -e "$app_dir" ]; then
        echo "install.sh: left $app_dir alone: it does not look like Desktop RAG" >&2
    fi
    refresh
    echo "Desktop RAG is uninstalled. Your index, settings and documents are kept."
}

install() {
    is_app "$here" || { echo "install.sh: $here is not the unpacked app" >&2; exit 1; }
    case $app_dir in
        *[\"\`\$\\%]*) echo "install.sh: cannot install under $app_dir (quote, \$, \\ or %)" >&2
                       exit 1 ;;
    esac
    if [ "$here" != "$app_dir" ]; then
        if [ -e "$app_dir" ] && ! is_app "$app_dir"; then
            echo "install.sh: $app_dir exists and is not Desktop RAG; move it away" >&2
            exit 1
        fi
        mkdir -p "$prefix/lib"
        rm -rf "$app_dir.new"
        cp -R "$here" "$app_dir.new"
        rm -rf "$app_dir"
        mv "$app_dir.new" "$app_dir"
    fi
    mkdir -p "$prefix/bin" "$(dirname "$desktop_file")" "$(dirname "$icon_svg")" \
        "$(dirname "$icon_png")"
    ln -sfn "$app_dir/desktop-rag" "$bin_link"
    sed -e "s|@EXEC@|\"$app_dir/desktop-rag\"|" -e "s|@TRYEXEC@|$app_dir/desktop-rag|" \
        "$app_dir/desktop-rag.desktop" > "$desktop_file.tmp"
    mv "$desktop_file.tmp" "$desktop_file"
    cp "$app_dir/desktop-rag.svg" "$icon_svg"
    cp "$app_dir/desktop-rag.png" "$icon_png"
    refresh
    echo "Desktop RAG is installed: open it from your applications menu, or run $bin_link"
    check_display
    case ":$PATH:" in
        *":$prefix/bin:"*) ;;
        *) echo "($prefix/bin is not on your PATH: add it to run desktop-rag by name)" ;;
    esac
}

case ${1:-} in
    "") install ;;
    --uninstall) uninstall ;;
    *) echo "usage: $0 [--uninstall]" >&2; exit 2 ;;
esac
