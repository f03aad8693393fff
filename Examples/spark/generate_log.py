#!/usr/bin/env python3
"""Writes a log of callback URLs such as a large service's access log holds, one URL per line.

    python3 generate_log.py OUTPUT --lines 1000000 [--seed 7] [--long-line-bytes 0] [--summary]

The mix (by weight) is what an audit of real callback logs sees: mostly successful callbacks of the five
providers, the providers' own errors and cancellations, callbacks to endpoints that are not the service's
(open-redirect attempts), forged states (repeated or missing), and about 3 % of lines that are not URLs at
all: truncated lines, spaces in hosts, bad ports, empty lines, invalid UTF-8, NUL bytes. Every code and token
contains the marker `SECRETx`, so a test can check that none reaches the output of a redacting job.

Deterministic for a seed. Written as bytes (some lines are not UTF-8). `--long-line-bytes N` adds one line of
N bytes (a URL with a huge query) in the middle; `--summary` prints the count of each kind to stderr.
"""

import argparse
import random
import sys

SITE = "https://id.example.ru/auth/callback"
MOBILE_VK = "vk7915193://vk.ru/blank.html"

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def token(rng, n):
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def secret(rng, n=24):
    """A code or token value: always contains SECRETx, so tests can look for leaks."""
    return "SECRETx" + token(rng, n)


def state(rng):
    return token(rng, 22)


def utm(rng):
    return rng.choice(["", "", "", "&utm_source=newsletter&utm_medium=email", "&from=header"])


# Each kind: (weight, name, function(rng) -> bytes)
def vk_success(rng):
    base = rng.choice([SITE + "/vk", MOBILE_VK])
    return (f"{base}?code=vk2.a.{secret(rng)}&state={state(rng)}&device_id={token(rng, 22)}"
            f"&type=code_v2&expires_in=600{utm(rng)}")


def vk_error(rng):
    return f"{SITE}/vk?error=access_denied&error_description=User%20denied%20access&state={state(rng)}"


def sber_success(rng):
    return f"{SITE}/sber?state={state(rng)}&code={secret(rng, 28)}{utm(rng)}"


def sber_error(rng):
    kind = rng.random()
    if kind < 0.5:
        return f"{SITE}/sber?error=access_denied&state={state(rng)}"
    if kind < 0.8:
        return f"{SITE}/sber?status=fail&error=invalid_scope&state={state(rng)}"
    return f"{SITE}/sber?result=FAILURE&error_code={rng.choice([5, 6, 8, 14])}"


def tid_success(rng):
    return f"{SITE}/tid?state={state(rng)}&code=c.{secret(rng, 10)}&session_state={token(rng, 40)}"


def tid_cancelled(rng):
    return rng.choice([f"{SITE}/tid?cancelled", f"{SITE}/tid?auth_status_code=cancelled_by_user"])


def apple_success(rng):
    return f"{SITE}/apple?state={state(rng)}&code=c{secret(rng, 32)}.0.nrqtw.{token(rng, 22)}"


def apple_cancelled(rng):
    return f"{SITE}/apple?error=user_cancelled_authorize&state={state(rng)}"


def oauth2_success(rng):
    return (f"{SITE}?code={secret(rng, 40)}&state={state(rng)}"
            f"&iss=https%3A%2F%2Flogin.partner.example{utm(rng)}")


def oauth2_error(rng):
    err = rng.choice(["access_denied", "login_required", "consent_required", "server_error",
                      "temporarily_unavailable", "invalid_request"])
    return f"{SITE}?error={err}&state={state(rng)}"


def implicit_grant(rng):
    # A leaked token in a URL: the implicit flow, in a fragment.
    return f"{SITE}#access_token={secret(rng, 30)}&token_type=Bearer&expires_in=3600&state={state(rng)}"


def open_redirect(rng):
    host = rng.choice(["id.example.ru.evil.example", "evil.example", "id-example.ru", "id.example.ru@evil.example"])
    return f"https://{host}/auth/callback?code={secret(rng)}&state={state(rng)}"


def forged_state(rng):
    kind = rng.random()
    if kind < 0.5:  # a second state appended: state injection
        return f"{SITE}?code={secret(rng)}&state={state(rng)}&state={state(rng)}"
    return f"{SITE}/tid?code=c.{secret(rng, 10)}&cancelled"  # conflicting outcomes


def page_view(rng):
    return rng.choice([
        "https://id.example.ru/", "https://id.example.ru/login?next=%2Faccount",
        "https://id.example.ru/static/app.js?v=3", f"https://id.example.ru/account/{rng.randint(1, 10**6)}",
    ])


def bad_line(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return "https://id.example .ru/auth/callback?code=x".encode()
    if kind == 1:
        return f"https://id.example.ru:{rng.randint(65536, 999999)}/auth/callback".encode()
    if kind == 2:
        return b""
    if kind == 3:  # truncated mid-line, as a log rotation leaves it
        return vk_success(rng)[: rng.randint(1, 7)].encode()
    if kind == 4:
        return b"https://id.example.ru/auth/callback?code=\xff\xfe" + secret(rng).encode()
    if kind == 5:
        return b"https://id.example.ru/\x00auth?code=" + secret(rng).encode()
    if kind == 6:
        return b"https://[::1/cb?code=x"
    return b"GET /auth/callback HTTP/1.1"


KINDS = [
    (22, "vk", vk_success), (3, "vk-error", vk_error),
    (16, "sber", sber_success), (3, "sber-error", sber_error),
    (12, "tid", tid_success), (2, "tid-cancelled", tid_cancelled),
    (8, "apple", apple_success), (2, "apple-cancelled", apple_cancelled),
    (14, "oauth2", oauth2_success), (4, "oauth2-error", oauth2_error), (1, "implicit-grant", implicit_grant),
    (2, "open-redirect", open_redirect), (1, "forged-state", forged_state),
    (7, "page-view", page_view), (3, "bad-line", bad_line),
]


def generate(out, lines, seed, long_line_bytes=0):
    """Writes `lines` lines (plus the long line, if any) to the binary stream `out`; returns the counts."""
    rng = random.Random(seed)
    weights = [w for w, _, _ in KINDS]
    counts = {}
    buffer = []
    for i in range(lines):
        if long_line_bytes and i == lines // 2:
            padding = long_line_bytes - len(SITE) - 40
            buffer.append(f"{SITE}?code={secret(rng)}&state=x&pad={'a' * max(padding, 0)}".encode())
            counts["long-line"] = 1
        _, name, make = rng.choices(KINDS, weights)[0]
        line = make(rng)
        buffer.append(line if isinstance(line, bytes) else line.encode())
        counts[name] = counts.get(name, 0) + 1
        if len(buffer) >= 10000:
            out.write(b"\n".join(buffer) + b"\n")
            buffer.clear()
    if buffer:
        out.write(b"\n".join(buffer) + b"\n")
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--long-line-bytes", type=int, default=0)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    with open(args.output, "wb") as out:
        counts = generate(out, args.lines, args.seed, args.long_line_bytes)
    if args.summary:
        for name, count in sorted(counts.items()):
            print(f"{name:16} {count}", file=sys.stderr)


if __name__ == "__main__":
    main()
