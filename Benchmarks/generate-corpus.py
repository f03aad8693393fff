#!/usr/bin/env python3
"""Writes the benchmark corpus: 10,000 realistic callback URLs, one per line, from a fixed seed.

    python3 Benchmarks/generate-corpus.py [OUTPUT] [--count N] [--seed S]

The mix follows ../shared/providers.md: VK ID (app, host-less and web), Sber ID (app and web success,
the three error encodings), T-ID (app, bare flags, Android, web), Sign in with Apple (query and fragment
modes with an id_token, percent-encoded `user` JSON), generic OAuth 2.0 / OIDC (with `iss`, errors),
universal links with utm parameters and fragments, and a few IDNA hosts and non-canonical spellings.
About 250 bytes per URL on average. The same seed always gives the same file (Python's `random` is stable
across versions for `random()`, `choice` and `randint` with integer arguments).
"""
import base64
import json
import random
import sys
import urllib.parse

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
URLSAFE = ALNUM + "-_"


def token(rng, n, alphabet=URLSAFE):
    return "".join(rng.choice(alphabet) for _ in range(n))


def uuid(rng):
    h = "0123456789ABCDEF"
    return "-".join(token(rng, k, h) for k in (8, 4, 4, 4, 12))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def id_token(rng):
    header = b64url(json.dumps({"kid": token(rng, 10, ALNUM), "alg": "RS256"}).encode())
    claims = {
        "iss": "https://appleid.apple.com", "aud": "ru.example.app", "exp": 1763700000 + rng.randint(0, 10**6),
        "iat": 1763600000, "sub": "000%d.%s.%04d" % (rng.randint(100000, 999999), token(rng, 32, "0123456789abcdef"), rng.randint(0, 9999)),
        "nonce": token(rng, 16), "c_hash": token(rng, 22), "email": token(rng, 10, "abcdefghij") + "@privaterelay.appleid.com",
        "email_verified": "true", "is_private_email": "true", "auth_time": 1763600000, "nonce_supported": True,
    }
    body = b64url(json.dumps(claims, separators=(",", ":")).encode())
    return "%s.%s.%s" % (header, body, token(rng, 86))


def q(pairs):
    return urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote)


def vk(rng):
    app = rng.randint(1000000, 53999999)
    code = "vk2.a." + token(rng, rng.randint(80, 140))
    state = token(rng, 32)
    device = token(rng, 40)
    kind = rng.random()
    if kind < 0.55:
        return "vk%d://vk.ru/blank.html?%s" % (app, q([("oauth2_params", b64url(b'{"scope":"vkid.personal_info email phone"}')), ("code", code), ("state", state), ("device_id", device), ("type", "code_v2"), ("expires_in", "600"), ("ext_id", token(rng, 60))]))
    if kind < 0.75:
        return "vk%d://?%s" % (app, q([("code", code), ("device_id", device), ("state", state), ("type", "code_v2"), ("vkconnect_auth_provider_method", "external_auth")]))
    if kind < 0.92:
        return "https://shop.example.ru/auth/vk?%s" % q([("from", "header"), ("code", code), ("type", "code_v2"), ("state", state), ("device_id", device), ("expires_in", "600")])
    return "vk%d://vk.ru/blank.html?%s" % (app, q([("error", "access_denied"), ("error_description", "User denied access"), ("state", state)]))


def sber(rng):
    state = token(rng, 24)
    kind = rng.random()
    utm = [("utm_source", rng.choice(["sbol", "sberbank_online", "partner"])), ("utm_medium", "app"), ("utm_campaign", "spring_%d" % rng.randint(1, 99))]
    if kind < 0.4:
        return "myapp://sberidauth?%s" % q([("status", "success"), ("state", state), ("code", uuid(rng))])
    if kind < 0.75:
        return "https://clientresource.ru/login/sberid/callback?%s" % q(utm + [("option1", "promo%d" % rng.randint(1, 99)), ("state", state), ("code", uuid(rng))])
    if kind < 0.85:
        return "myapp://sberidauth?%s" % q([("status", "fail"), ("error", rng.choice(["invalid_scope", "access_denied", "invalid_request"])), ("state", state)])
    if kind < 0.92:
        return "app://merchant_app/?result=FAILURE&error_code=%d" % rng.randint(1, 9)
    return "https://clientresource.ru/login/sberid/callback?%s" % q([("error", "access_denied"), ("state", state)])


def tid(rng):
    kind = rng.random()
    code = "c." + token(rng, 10)
    if kind < 0.4:
        return "myapp://authorized?code=" + code
    if kind < 0.5:
        return "myapp://authorized?" + rng.choice(["cancelled", "unavailable"])
    if kind < 0.65:
        return "https://www.partner.com/partner?auth_status_code=success&code=" + code
    return "https://myintegration.ru/auth/complete?%s" % q([("state", token(rng, 20)), ("code", code), ("session_state", token(rng, 43) + "." + token(rng, 20))])


def apple(rng):
    state = token(rng, 16, "0123456789abcdef")
    code = token(rng, 33, "0123456789abcdef") + ".0.nrqtw." + token(rng, 22)
    user = json.dumps({"name": {"firstName": rng.choice(["Timm", "Anna", "Иван"]), "lastName": rng.choice(["Preetz", "Petrova"])}, "email": token(rng, 10, "abcdefghij") + "@privaterelay.appleid.com"}, ensure_ascii=False, separators=(",", ":"))
    kind = rng.random()
    if kind < 0.4:
        return "https://example.com/auth/apple/callback?%s" % q([("state", state), ("code", code)])
    if kind < 0.6:
        return "https://example.com/auth/apple/callback#%s" % q([("state", state), ("code", code), ("id_token", id_token(rng))])
    if kind < 0.8:
        return "signinwithapple://callback?%s" % q([("code", code), ("user", user)])
    if kind < 0.9:
        return "https://example.com/auth/apple/callback?%s" % q([("state", state), ("code", code), ("id_token", id_token(rng)), ("user", user)])
    return "signinwithapple://callback?error=user_cancelled_authorize&state=" + state


def oauth(rng):
    state = token(rng, 32)
    kind = rng.random()
    host = rng.choice(["app.example.com", "portal.example.ru", "id.example.org"])
    if kind < 0.6:
        return "https://%s/oauth2/callback?%s" % (host, q([("code", token(rng, 64)), ("state", state), ("iss", "https://accounts.example.com"), ("session_state", token(rng, 36) + "." + token(rng, 40))]))
    if kind < 0.8:
        return "com.example.app:/oauth2redirect?%s" % q([("code", token(rng, 43)), ("state", state)])
    return "https://%s/oauth2/callback?%s" % (host, q([("error", rng.choice(["access_denied", "login_required", "consent_required"])), ("error_description", "The user denied the request"), ("state", state)]))


def universal(rng):
    path = "/%s/%s/%d" % (rng.choice(["app", "open", "l"]), rng.choice(["promo", "product", "order", "profile"]), rng.randint(1, 10**6))
    pairs = [("utm_source", rng.choice(["email", "push", "vk", "telegram"])), ("utm_medium", rng.choice(["cpc", "social", "newsletter"])), ("utm_campaign", "black_friday_%d" % rng.randint(2020, 2026)), ("utm_content", token(rng, 12)), ("ref", token(rng, 8)), ("gclid", token(rng, 90))]
    frag = rng.choice(["", "#reviews", "#section-" + str(rng.randint(1, 9))])
    return "https://links.example.ru%s?%s%s" % (path, q(pairs), frag)


def idna(rng):
    host = rng.choice(["пример.рф", "магазин.рф", "почта.example.ru", "bücher.example"])
    return "https://%s/oauth/callback?%s" % (host, q([("code", token(rng, 32)), ("state", token(rng, 16))]))


def noncanonical(rng):
    url = rng.choice([vk, sber, oauth, universal])(rng)
    kind = rng.random()
    if kind < 0.3:
        return url.replace("https://", "HTTPS://", 1)
    if kind < 0.6 and url.startswith("https://"):
        scheme, rest = url.split("://", 1)
        host, tail = rest.split("/", 1)
        return "%s://%s:443/%s" % (scheme, host.upper(), tail)
    if kind < 0.8:
        return url.replace("?", "/./?", 1)
    return url.replace("&", "&amp;x=a b&", 1)


MIX = [(vk, 0.22), (sber, 0.16), (tid, 0.10), (apple, 0.14), (oauth, 0.16), (universal, 0.14), (idna, 0.03), (noncanonical, 0.05)]


def main():
    args = sys.argv[1:]
    out = "Benchmarks/corpus/callbacks.txt"
    count = 10_000
    seed = 20261121
    i = 0
    while i < len(args):
        if args[i] == "--count":
            count = int(args[i + 1]); i += 2
        elif args[i] == "--seed":
            seed = int(args[i + 1]); i += 2
        else:
            out = args[i]; i += 1
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        r = rng.random()
        acc = 0.0
        for fn, w in MIX:
            acc += w
            if r < acc:
                break
        lines.append(fn(rng))
    import os
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    total = sum(len(l.encode()) for l in lines)
    print("wrote %d URLs, %d bytes, %.0f bytes per URL on average, to %s" % (count, total, total / count, out), file=sys.stderr)


if __name__ == "__main__":
    main()
