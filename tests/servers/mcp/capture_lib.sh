# Helpers for the capture scripts: one HTTP exchange -> three files, exact bytes.
#   NAME.req      the request line and headers curl sent, then a blank line, then the body
#   NAME.headers  the response status line and headers, as received (CRLF kept)
#   NAME.body     the response body, as received (SSE kept byte for byte)
#   NAME.curl-error  only when curl failed (refused connection, --max-time reached on a stream)
# Sourced, not executed. Needs OUT (output dir) set.

# xchg NAME METHOD URL [BODY] [extra curl args...]
# Body "-" means none. Extra args are usually -H 'Header: value'.
xchg() {
  local name=$1 method=$2 url=$3 body=${4:--}; shift 4 2>/dev/null || shift $#
  local args=(-sS -N -X "$method" -D "$OUT/$name.headers" -o "$OUT/$name.body" -v
              --max-time "${MAXTIME:-15}" "$@")
  if [ "$body" != "-" ]; then
    printf '%s' "$body" > "$OUT/$name.reqbody"
    args+=(--data-binary "@$OUT/$name.reqbody")
  fi
  if ! curl "${args[@]}" "$url" 2> "$OUT/$name.trace"; then
    grep '^curl: ' "$OUT/$name.trace" > "$OUT/$name.curl-error" || true
  fi
  touch "$OUT/$name.body" "$OUT/$name.headers"   # curl writes nothing when no byte came
  { { grep '^> ' "$OUT/$name.trace" || true; } | sed 's/^> //' | tr -d '\r'
    [ "$body" != "-" ] && cat "$OUT/$name.reqbody"; } > "$OUT/$name.req"
  rm -f "$OUT/$name.trace" "$OUT/$name.reqbody"
  echo "captured $name: $(head -1 "$OUT/$name.headers" | tr -d '\r') ($(wc -c < "$OUT/$name.body") body bytes)" >&2
}

# header value (case-insensitive) from a captured .headers file
hval() { grep -i "^$2:" "$OUT/$1.headers" | head -1 | cut -d' ' -f2- | tr -d '\r'; }

# wait until a file has a first line (the launcher's port), print it
wait_port() {
  local f=$1 i
  for i in $(seq 1 100); do
    if [ -s "$f" ]; then head -1 "$f"; return 0; fi
    sleep 0.1
  done
  echo "no port in $f" >&2; return 1
}
