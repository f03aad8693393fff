#!/usr/bin/env python3
"""Searches the multipliers of `linkparse_callback_slot` (Sources/CByteScan/include/CByteScan.h) and prints the
table `linkparse_callback_names` (Sources/CByteScan/CByteScan.c) for the callback parameter names.

The slot of a name of n >= 3 bytes p[0..<n] is (A * p[0] + B * p[1] + C * p[n - 1] + D * n) & 63; the names, in
the order of the Swift enum `CallbackFields.Key` (their index is the key), must fall in distinct slots. (The
second byte is needed since `scope` and `state` share their first and last bytes and their length.) The search
tries the smallest multipliers first (their sum, then A, B, C). Run it after adding a name to `CallbackFields.Key` (same order), paste its output
over the table and the multipliers, and run `CallbackNameLookupTests`.

    python3 Scripts/callback-name-table.py
"""

NAMES = [
    "code", "state", "error", "error_description", "error_uri", "iss", "session_state", "device_id", "type",
    "expires_in", "ext_id", "vkconnect_auth_provider_method", "payload", "status", "result", "error_code",
    "cancelled", "unavailable", "auth_status_code", "id_token", "user", "access_token", "token_type", "scope",
]


def slot(name, m):
    a, b, c, d = m
    p = name.encode()
    return (a * p[0] + b * p[1] + c * p[-1] + d * len(p)) & 63


def search():
    for total in range(1, 4 * 63):
        for a in range(1, min(total, 63) + 1):
            for b in range(0, min(total - a, 63) + 1):
                for c in range(0, min(total - a - b, 63) + 1):
                    d = total - a - b - c
                    if d > 63:
                        continue
                    m = (a, b, c, d)
                    if len({slot(n, m) for n in NAMES}) == len(NAMES):
                        return m
    raise SystemExit("no multipliers found")


m = search()
print("// multipliers: A = %d, B = %d, C = %d, D = %d" % m)
print("//   ((unsigned)p[0] * %du + (unsigned)p[1] * %du + (unsigned)p[n - 1] * %du + (unsigned)n * %du) & 63u" % m)
rows = sorted((slot(n, m), len(n), k, n) for k, n in enumerate(NAMES))
for s, length, key, name in rows:
    assert 3 <= length <= 30
    print(f'  [{s}] = {{{length}, {key}, "{name}"}},')
