#!/bin/sh
# Regenerates the colour profiles this package embeds, from Debian's
# icc-profiles-free (Zlib licence; see README.md):
#   sRGB.icc     copied as shipped;
#   FOGRA39.icc  built by ArgyllCMS's colprof from Fogra's FOGRA39L.ti3
#                characterisation data (offset, ISO 12647-2, coated paper).
# Needs apt-get (for the .deb, no root needed), dpkg-deb and colprof
# (Debian package argyll). colprof stamps the build date into the profile,
# so two runs give different bytes with the same colours.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v colprof >/dev/null || { echo "colprof is missing: apt-get install -y argyll" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
apt-get download icc-profiles-free >/dev/null 2>&1 || apt-get download icc-profiles-free
dpkg-deb -x icc-profiles-free_*.deb x
icc=x/usr/share/color/icc
cp "$icc/sRGB.icc" "$here/sRGB.icc"
cp "$icc/FOGRA39L.ti3" FOGRA39.ti3
# -qm: medium quality (A2B grid 9, B2A grid 17): about 120 KB, 93 KB
#      deflated, small enough to embed in every file.
# -nc: leave the 127 KB of measurements out of the profile.
# -l 330: total ink limit 330%, the usual one for FOGRA39 (ISO Coated v2):
#      RGB converted through this profile never asks for more ink than that.
colprof -qm -nc -l 330 \
  -A "Platen" \
  -D "FOGRA39 coated (ISO 12647-2:2004/Amd 1), Platen build from FOGRA39L.ti3" \
  -C "Data: Fogra FOGRA39L via Debian icc-profiles-free, Zlib licence" \
  FOGRA39 >/dev/null
cp FOGRA39.icc "$here/FOGRA39.icc"
echo "icc-profiles-free $(dpkg-deb -f icc-profiles-free_*.deb Version); $(colprof 2>&1 | sed -n 1p | tr -d '\r')"
ls -l "$here/FOGRA39.icc" "$here/sRGB.icc"
