# Sourced by install-deps.sh and build-kube.sh: makes `apt-get source` work by adding deb-src
# entries derived from the machine's own deb entries (same URIs, suites, components and
# keyring), so a mirror, a proxy or a snapshot keeps working; no host name is written here.
#
#   fieldscope_derive_deb_src ETC_APT   prints what would be written (for tests), no side effects
#   fieldscope_ensure_deb_src           writes /etc/apt/sources.list.d/fieldscope-src.{sources,list}
#                                       when they would change; returns 0, prints what it did

# deb822 stanzas (*.sources) with Types "deb" and not "deb-src", as deb-src stanzas; then, after
# a line "--- list", one-line entries ("deb [opts] URI suite comp...") as deb-src lines.
fieldscope_derive_deb_src() {
  local etc="$1" f
  for f in "$etc"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "$(basename "$f")" in fieldscope-src.*) continue ;; esac
    awk '
      function flush() {
        if (n > 0 && isdeb && !hassrc && enabled) {
          if (out++) print ""
          print "Types: deb-src"
          for (i = 1; i <= n; i++) print lines[i]
        }
        n = 0; isdeb = 0; hassrc = 0; enabled = 1
      }
      BEGIN { n = 0; enabled = 1 }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^Types:/ { for (i = 2; i <= NF; i++) { if ($i == "deb") isdeb = 1; if ($i == "deb-src") hassrc = 1 }; next }
      /^Enabled:[ \t]*[Nn][Oo]/ { enabled = 0 }
      /^Enabled:/ { next }
      { lines[++n] = $0 }
      END { flush() }
    ' "$f"
  done
  echo "--- list"
  for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    case "$(basename "$f")" in fieldscope-src.*) continue ;; esac
    sed -nE 's/^[[:space:]]*deb([[:space:]]+)/deb-src\1/p' "$f"
  done
}

# True when a deb-src entry other than ours is enabled already.
fieldscope_has_foreign_deb_src() {
  local etc="$1"
  find "$etc/sources.list" "$etc/sources.list.d" -maxdepth 1 -type f \( -name '*.list' -o -name '*.sources' -o -name sources.list \) \
      ! -name 'fieldscope-src.*' -print0 2>/dev/null \
    | xargs -0 -r grep -hsE '^(Types:.*deb-src|deb-src[[:space:]])' | grep -q .
}

fieldscope_ensure_deb_src() {
  local etc=/etc/apt sudo="" derived stanzas lines changed=0
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if fieldscope_has_foreign_deb_src "$etc"; then
    return 0
  fi
  derived="$(fieldscope_derive_deb_src "$etc")"
  stanzas="$(printf '%s\n' "$derived" | sed '/^--- list$/,$d')"
  lines="$(printf '%s\n' "$derived" | sed '1,/^--- list$/d')"
  if [ -z "$stanzas$lines" ]; then
    echo "fieldscope: no deb entries in $etc to derive deb-src from; add one for Debian's main archive" >&2
    return 1
  fi
  write_if_changed() { # file content
    if [ -z "$2" ]; then
      [ -e "$1" ] && { $sudo rm -f "$1"; changed=1; }
      return 0
    fi
    if [ "$(cat "$1" 2>/dev/null)" != "$2" ]; then
      printf '%s\n' "$2" | $sudo tee "$1" >/dev/null
      changed=1
    fi
  }
  write_if_changed "$etc/sources.list.d/fieldscope-src.sources" "$stanzas"
  write_if_changed "$etc/sources.list.d/fieldscope-src.list" "$lines"
  if [ "$changed" = 1 ]; then
    echo "fieldscope: added deb-src entries derived from this machine's apt sources" >&2
    $sudo apt-get update -qq
  fi
}
