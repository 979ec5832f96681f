#!/bin/sh
# Sign dist/Desktop RAG.app with a Developer ID certificate, then (with NOTARIZE=1) notarize the
# .dmg given and staple the ticket to it. Needs, in the environment:
#   MACOS_CERTIFICATE (base64 of the .p12), MACOS_CERTIFICATE_PASSWORD, MACOS_SIGNING_IDENTITY
#   ("Developer ID Application: Name (TEAMID)"); for notarizing also APPLE_ID,
#   APPLE_TEAM_ID and APPLE_APP_PASSWORD (an app-specific password).
#   sh packaging/macos/sign.sh app            sign the .app (before make_dmg.sh)
#   sh packaging/macos/sign.sh notarize DMG   notarize and staple the disk image
set -eu
case ${1:-} in
app)
    keychain="$RUNNER_TEMP/signing.keychain-db"
    [ -n "${RUNNER_TEMP:-}" ] || keychain="$(mktemp -d)/signing.keychain-db"
    password=$(openssl rand -hex 16)
    echo "$MACOS_CERTIFICATE" | base64 --decode > "$keychain.p12"
    security create-keychain -p "$password" "$keychain"
    security set-keychain-settings -lut 21600 "$keychain"
    security unlock-keychain -p "$password" "$keychain"
    security import "$keychain.p12" -P "$MACOS_CERTIFICATE_PASSWORD" -A -t cert -f pkcs12 \
        -k "$keychain"
    security list-keychains -d user -s "$keychain"
    rm -f "$keychain.p12"
    # Hardened runtime: notarization requires it. Every Mach-O inside, then the app.
    codesign --force --deep --options runtime --timestamp \
        --sign "$MACOS_SIGNING_IDENTITY" "dist/Desktop RAG.app"
    codesign --verify --deep --strict --verbose=2 "dist/Desktop RAG.app"
    ;;
notarize)
    dmg=${2:?usage: sign.sh notarize DMG}
    xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
        --password "$APPLE_APP_PASSWORD" --wait
    xcrun stapler staple "$dmg"
    ;;
*)
    echo "usage: $0 app | notarize DMG" >&2
    exit 2
    ;;
esac
