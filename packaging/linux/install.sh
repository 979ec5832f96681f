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
