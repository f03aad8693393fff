#!/usr/bin/env python3
"""The demo OpenID Connect provider: a real HTTP server on loopback that the example server logs in with.

It approves every authorization at once (it is a demo: never run it beside real providers), and is otherwise
strict the way a real provider is: the code is single-use and short-lived, bound to its client, redirect URI
and PKCE challenge (S256); the token endpoint authenticates the client (client_secret_basic or _post); the
id_token carries iss, sub, aud, exp, iat, auth_time, the nonce sent and at_hash, signed with RS256 or ES256
(alternately, each key with its own kid). Keys rotate on request: POST /rotate replaces both keys, and the
JWKS (Cache-Control: max-age=300) then lists only the new ones.

  GET  /.well-known/openid-configuration
  GET  /jwks                 (counted: GET /stats says how many times it was fetched)
  GET  /authorize            response_type=code, client_id, redirect_uri, state, nonce, code_challenge
  POST /token                grant_type=authorization_code, code, redirect_uri, code_verifier (answers a
                             refresh_token too); grant_type=refresh_token, refresh_token (rotating: each is
                             good once, a reuse is refused and counted)
  GET  /userinfo             Authorization: Bearer <access token>
  GET  /logout               client_id, post_logout_redirect_uri (under the redirect prefix), state
  POST /rotate               new keys
  GET  /stats                {"jwks_fetches": N, "tokens": N, "rotations": N, "logouts": N, "refreshes": N,
                              "refresh_reuse": N}

Usage: demo_provider.py [--host 127.0.0.1] [--port 8081] [--client-id demo] [--client-secret demo-secret]
                        [--redirect-prefix http://127.0.0.1:8080/] [--token-lifetime 300]
                        [--refresh-delay 0]
Needs Python 3 with `cryptography` (Debian: python3-cryptography).
"""
import argparse
import urllib.error
import urllib.request
import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def int_b64url(n: int) -> str:
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def encode_jwt(claims, key, alg, kid, typ="JWT"):
    """A compact JWS: RS256 (RSASSA-PKCS1-v1_5, SHA-256) or ES256 (ECDSA P-256, SHA-256, r || s)."""
    header = {"alg": alg, "typ": typ, "kid": kid}
    signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
                     + b64url(json.dumps(claims, separators=(",", ":")).encode())).encode()
    if alg == "RS256":
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input.decode() + "." + b64url(signature)


class Keys:
    """The current RS256 and ES256 keys, with their kids."""

    def __init__(self):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.rsa_kid = "rs-" + secrets.token_hex(6)
        self.ec_kid = "es-" + secrets.token_hex(6)

    def jwks(self):
        r = self.rsa.public_key().public_numbers()
        e = self.ec.public_key().public_numbers()
        return {"keys": [
            {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.rsa_kid, "n": int_b64url(r.n), "e": int_b64url(r.e)},
            {"kty": "EC", "use": "sig", "alg": "ES256", "kid": self.ec_kid, "crv": "P-256",
             "x": b64url(e.x.to_bytes(32, "big")), "y": b64url(e.y.to_bytes(32, "big"))},
        ]}


class Provider:
    def __init__(self, issuer, client_id, client_secret, redirect_prefix, token_lifetime=300, refresh_delay=0.0):
        self.issuer = issuer
        self.token_lifetime = token_lifetime
        self.refresh_delay = refresh_delay
        self.client_id = client_id
        self.client_secret = client_secret
        self.redirect_prefix = redirect_prefix
        self.lock = threading.Lock()
        self.keys = Keys()
        self.codes = {}
        self.tokens = {}
        self.refresh_tokens = {}
        self.sids = {}  # the last login's sid of each subject
        self.stats = {"jwks_fetches": 0, "tokens": 0, "rotations": 0, "logouts": 0, "refreshes": 0,
                      "refresh_reuse": 0}
        self.turn = 0

    def metadata(self):
        i = self.issuer
        return {
            "issuer": i, "authorization_endpoint": i + "/authorize", "token_endpoint": i + "/token",
            "userinfo_endpoint": i + "/userinfo", "jwks_uri": i + "/jwks", "end_session_endpoint": i + "/logout",
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "backchannel_logout_supported": True, "backchannel_logout_session_supported": True,
        }

    def sign(self, claims, typ="JWT"):
        with self.lock:
            self.turn += 1
            keys = self.keys
            use_rsa = self.turn % 2 == 1
        if use_rsa:
            return encode_jwt(claims, keys.rsa, "RS256", keys.rsa_kid, typ)
        return encode_jwt(claims, keys.ec, "ES256", keys.ec_kid, typ)


class Handler(BaseHTTPRequestHandler):
    provider: Provider = None
    protocol_version = "HTTP/1.1"
    # One write per answer (the status line, headers and body buffered, flushed when the request is done) and no
    # Nagle delay: otherwise a keep-alive client waits out its delayed ACK (40 ms) on every request.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=None):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if body is not None and "Content-Type" not in (headers or {}):
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, description):
        self.answer(status, {"error": code, "error_description": description}, {"Cache-Control": "no-store"})

    def do_GET(self):
        p = self.provider
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        if url.path == "/.well-known/openid-configuration":
            return self.answer(200, p.metadata())
        if url.path == "/jwks":
            with p.lock:
                p.stats["jwks_fetches"] += 1
                keys = p.keys
            return self.answer(200, keys.jwks(), {"Cache-Control": "public, max-age=300"})
        if url.path == "/stats":
            with p.lock:
                return self.answer(200, dict(p.stats))
        if url.path == "/authorize":
            redirect = query.get("redirect_uri", "")
            if query.get("client_id") != p.client_id or not redirect.startswith(p.redirect_prefix):
                return self.answer(400, {"error": "invalid_request", "error_description": "unknown client or redirect_uri"})
            if query.get("response_type") != "code" or query.get("code_challenge_method") != "S256" \
                    or not query.get("code_challenge"):
                return self.answer(400, {"error": "invalid_request", "error_description": "code flow with PKCE S256 only"})
            code = secrets.token_urlsafe(24)
            with p.lock:
                p.codes[code] = {"redirect_uri": redirect, "nonce": query.get("nonce"),
                                 "challenge": query["code_challenge"], "expires": time.time() + 60,
                                 "sub": "demo-user-" + secrets.token_hex(4)}
            back = redirect + ("&" if "?" in redirect else "?") + urllib.parse.urlencode(
                {"code": code, "state": query.get("state", "")})
            return self.answer(302, None, {"Location": back, "Cache-Control": "no-store"})
        if url.path == "/logout":
            # RP-initiated logout: back to a registered address only (no open redirect).
            back = query.get("post_logout_redirect_uri", "")
            if query.get("client_id") != p.client_id or not back.startswith(p.redirect_prefix):
                return self.answer(400, {"error": "invalid_request", "error_description": "unknown client or redirect"})
            with p.lock:
                p.stats["logouts"] += 1
            if "state" in query:
                back += ("&" if "?" in back else "?") + urllib.parse.urlencode({"state": query["state"]})
            return self.answer(302, None, {"Location": back, "Cache-Control": "no-store"})
        if url.path == "/userinfo":
            auth = self.headers.get("Authorization", "")
            with p.lock:
                sub = p.tokens.get(auth[len("Bearer "):]) if auth.startswith("Bearer ") else None
            if sub is None:
                return self.answer(401, {"error": "invalid_token"}, {"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return self.answer(200, {"sub": sub, "name": "Demo User", "email": sub + "@demo.example"})
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        p = self.provider
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))
        if url.path == "/rotate":
            with p.lock:
                p.keys = Keys()
                p.stats["rotations"] += 1
                return self.answer(200, {"kids": [p.keys.rsa_kid, p.keys.ec_kid]})
        if url.path == "/backchannel":
            return self.backchannel(p, form)
        if url.path != "/token":
            return self.answer(404, {"error": "not_found"})
        client_id, secret = form.get("client_id"), form.get("client_secret")
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            pair = base64.b64decode(auth[6:]).decode()
            client_id, _, secret = pair.partition(":")
            client_id, secret = urllib.parse.unquote_plus(client_id), urllib.parse.unquote_plus(secret)
        if client_id != p.client_id or (p.client_secret and secret != p.client_secret):
            return self.error(401, "invalid_client", "client authentication failed")
        if form.get("grant_type") == "refresh_token":
            return self.refresh(p, form)
        if form.get("grant_type") != "authorization_code":
            return self.error(400, "unsupported_grant_type", "authorization_code and refresh_token only")
        with p.lock:
            grant = p.codes.pop(form.get("code", ""), None)
        if grant is None or grant["expires"] < time.time():
            return self.error(400, "invalid_grant", "unknown, used or expired code")
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return self.error(400, "invalid_grant", "redirect_uri differs from the authorization request's")
        verifier = form.get("code_verifier", "")
        if b64url(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]:
            return self.error(400, "invalid_grant", "code_verifier does not match the code_challenge")
        access = secrets.token_urlsafe(32)
        now = int(time.time())
        # Each login is a session at the provider, named by its sid (what a back-channel logout token names).
        claims = {"iss": p.issuer, "sub": grant["sub"], "aud": p.client_id, "iat": now, "exp": now + 300,
                  "auth_time": now, "at_hash": b64url(hashlib.sha256(access.encode()).digest()[:16]),
                  "sid": "sid-" + secrets.token_hex(8)}
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        with p.lock:
            p.sids[grant["sub"]] = claims["sid"]
        id_token = p.sign(claims)
        refresh = secrets.token_urlsafe(32)
        with p.lock:
            p.tokens[access] = grant["sub"]
            p.refresh_tokens[refresh] = grant["sub"]
            p.stats["tokens"] += 1
        self.answer(200, {"access_token": access, "token_type": "Bearer", "expires_in": p.token_lifetime,
                          "refresh_token": refresh, "id_token": id_token}, {"Cache-Control": "no-store"})

    def backchannel(self, p, form):
        # OpenID Connect Back-Channel Logout 1.0: a signed logout token (typ logout+jwt) naming form's `sub` and/or
        # `sid`, posted to form's `target` (the client's backchannel_logout_uri) as `logout_token`. Answers what the
        # client answered, and the token (a test replays it). `sid_of=<sub>` names that subject's last login's sid.
        # `aud`, `nonce`, `iat` in the form override the claims (to make tokens a client must refuse).
        now = int(time.time())
        claims = {"iss": p.issuer, "aud": form.get("aud", p.client_id), "iat": int(form.get("iat", now)),
                  "exp": int(form.get("iat", now)) + 120, "jti": secrets.token_urlsafe(16),
                  "events": {"http://schemas.openid.net/event/backchannel-logout": {}}}
        for name in ("sub", "sid", "nonce"):
            if form.get(name):
                claims[name] = form[name]
        if form.get("sid_of"):  # the sid of that subject's last login
            with p.lock:
                claims["sid"] = p.sids.get(form["sid_of"], "unknown")
        token = p.sign(claims, typ="logout+jwt")
        request = urllib.request.Request(
            form["target"], data=urllib.parse.urlencode({"logout_token": token}).encode(), method="POST",
            headers={"Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                status = answer.status
        except urllib.error.HTTPError as refused:
            status = refused.code
        self.answer(200, {"status": status, "logout_token": token})

    def refresh(self, p, form):
        # Refresh tokens rotate (RFC 9700 §4.14.2): each is good once; a second use is refused and counted, which
        # is what a client that refreshes one session twice at once runs into.
        with p.lock:
            sub = p.refresh_tokens.pop(form.get("refresh_token", ""), None)
            if sub is None:
                p.stats["refresh_reuse"] += 1
        if sub is None:
            return self.error(400, "invalid_grant", "unknown or already used refresh token")
        if p.refresh_delay:
            time.sleep(p.refresh_delay)
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with p.lock:
            p.tokens[access] = sub
            p.refresh_tokens[refresh] = sub
            p.stats["refreshes"] += 1
        self.answer(200, {"access_token": access, "token_type": "Bearer", "expires_in": p.token_lifetime,
                          "refresh_token": refresh}, {"Cache-Control": "no-store"})


def main():
    parser = argparse.ArgumentParser(description="The demo OpenID Connect provider (loopback only).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--client-id", default="demo")
    parser.add_argument("--client-secret", default="demo-secret")
    parser.add_argument("--redirect-prefix", default="http://127.0.0.1:8080/")
    parser.add_argument("--token-lifetime", type=int, default=300, help="access tokens' expires_in, seconds")
    parser.add_argument("--refresh-delay", type=float, default=0.0, help="seconds a refresh grant takes")
    args = parser.parse_args()
    issuer = "http://%s:%d" % (args.host, args.port)
    Handler.provider = Provider(issuer, args.client_id, args.client_secret, args.redirect_prefix,
                                args.token_lifetime, args.refresh_delay)
    ThreadingHTTPServer.request_queue_size = 1024  # a burst of logins is not refused at the listen queue
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print("demo provider: %s (client %s)" % (issuer, args.client_id), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
