#!/usr/bin/env bash
# Regenerate the web's German catalogue (src/web/locale/de/LC_MESSAGES/django.po) from the
# templates and code (makemessages in src/web; web/translations_extra.py lists the
# services' texts the pages translate), keep every translation already in it, fill only
# missing ones from the .po files given as arguments (if any), then compile the .mo.
# The catalogue in git is the source of truth: the extra files never override it, and
# nothing is fuzzy-matched (makemessages starts from an empty file).
#   src/web/locale/merge_po.sh [more-translations.po ...]
set -euo pipefail
export DJANGO_DEBUG=true
extra=()
for file in "$@"; do extra+=("$(realpath "$file")"); done
cd "$(dirname "$0")/.."          # src/web
po=locale/de/LC_MESSAGES/django.po
keep=$(mktemp --suffix=.po)
comp=$(mktemp --suffix=.po)
head=$(mktemp --suffix=.po)
cp "$po" "$keep"
rm -f "$po"
../../.venv/bin/python ../manage.py makemessages -l de --no-obsolete --no-location >/dev/null
../../.venv/bin/python - "$po" "$head" <<'PY'
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
header = (
    '# German messages of the Encore web pages (informal "du", as in the notifications).\n'
    '# Regenerate with src/web/locale/merge_po.sh; terms: docs/architecture/web-i18n.md.\n'
    'msgid ""\nmsgstr ""\n'
    '"Project-Id-Version: Encore web\\n"\n'
    '"PO-Revision-Date: 2026-12-01 17:00+0000\\n"\n'
    '"Last-Translator: Encore maintainers\\n"\n'
    '"Language-Team: German\\n"\n'
    '"Language: de\\n"\n'
    '"MIME-Version: 1.0\\n"\n'
    '"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Content-Transfer-Encoding: 8bit\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n'
)
body = text[text.index("\n\n", text.index('msgid ""')) :]
open(path, "w", encoding="utf-8").write(header + body)
open(sys.argv[2], "w", encoding="utf-8").write(header)
PY
sources=("$head" "$keep")
sources+=("${extra[@]}")
msgcat --use-first "${sources[@]}" -o "$comp"
msgmerge --quiet --no-fuzzy-matching --no-location -o "$po.new" "$comp" "$po"
msgattrib --no-obsolete -o "$po" "$po.new"
rm -f "$po.new"
rm -f "$head" "$keep" "$comp"
echo "untranslated: $(msgattrib --untranslated --no-obsolete "$po" | grep -c '^msgid' || true)"
echo "fuzzy: $(msgattrib --only-fuzzy --no-obsolete "$po" | grep -c '^msgid' || true)"
../../.venv/bin/python ../manage.py compilemessages -l de >/dev/null
