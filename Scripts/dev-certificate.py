#!/usr/bin/env python3
"""A self-signed certificate for local HTTPS development: `localhost`, 127.0.0.1 and ::1, P-256, 30 days.

    python3 Scripts/dev-certificate.py OUT_DIR     writes OUT_DIR/cert.pem and OUT_DIR/key.pem (kept when both
                                                  exist and the certificate is valid for another day)

`make serve-example-https` serves the example on https://localhost:8443 with it, so that cookies a browser keeps
only over HTTPS (`__Host-`, `Secure`, Sign in with Apple's `SameSite=None` form_post cookie) work in development.
Browsers warn about a self-signed certificate: accept it once for localhost, or trust cert.pem locally.
Needs Python's `cryptography` (make demo-deps installs it).
"""
import datetime
import ipaddress
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cert_path, key_path = os.path.join(out, "cert.pem"), os.path.join(out, "key.pem")
    now = datetime.datetime.now(datetime.timezone.utc)
    if os.path.exists(cert_path) and os.path.exists(key_path):
        with open(cert_path, "rb") as f:
            existing = x509.load_pem_x509_certificate(f.read())
        if existing.not_valid_after_utc > now + datetime.timedelta(days=1):
            print(f"dev-certificate: {cert_path} (kept)")
            return 0
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.IPAddress(ipaddress.ip_address("::1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    os.chmod(key_path, 0o600)
    with open(cert_path, "wb") as f:
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    print(f"dev-certificate: {cert_path}, {key_path} (new, 30 days)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
