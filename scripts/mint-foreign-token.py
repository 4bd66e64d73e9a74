#!/usr/bin/env python3
"""Mints Fleet Engine tokens with Python's `cryptography`, not jwt-kit, so tests can check that
tokendash judges tokens it did not make. Prints one JSON object:
{"token": ..., "tampered": ..., "jwks": {...}, "kid": ...}

  python3 scripts/mint-foreign-token.py --claim tripid=trip-7 [--lifetime 600] [--iat-offset 0]
      [--iss EMAIL] [--kid KID] [--no-kid] [--jwks-out FILE] [--shape python|java-impersonated]
      [--extra-keys N]

The key is generated fresh and lives only in this process; "tampered" is the token with its
authorization ID changed under the original signature. --jwks-out also writes the key set to FILE
(mode 0600), for `--jwks FILE`. --shape java-impersonated writes the token as
java-fleetengine-auth's ImpersonatedSigner does (auth0 java-jwt: header {"typ","alg"} with no kid,
claims in java.util.HashMap's order, compact): the key set then still names the key, as IAM
publishes it. --extra-keys puts N more keys of the same account before it in the key set.
"""
import argparse
import base64
import json
import os
import sys
import time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def part(obj) -> str:
    # Google's Python auth library writes compact JSON; key order differs from jwt-kit's on purpose.
    return b64url(json.dumps(obj, separators=(",", ":")).encode())


def integer(n: int) -> str:
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claim", required=True, help="authorization member NAME=ID, e.g. tripid=trip-7")
    parser.add_argument("--lifetime", type=int, default=600)
    parser.add_argument("--iat-offset", type=int, default=0, help="seconds added to iat (a skewed clock)")
    parser.add_argument("--iss", default="python-minter@foreign-project.iam.gserviceaccount.com")
    parser.add_argument("--kid", default="python-key-1")
    parser.add_argument("--no-kid", action="store_true")
    parser.add_argument("--jwks-out")
    parser.add_argument("--shape", choices=["python", "java-impersonated"], default="python")
    parser.add_argument("--extra-keys", type=int, default=0)
    args = parser.parse_args()
    name, sep, ident = args.claim.partition("=")
    if not sep or not name:
        parser.error("--claim must be NAME=ID")

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    header = {"typ": "JWT", "alg": "RS256"}
    if not args.no_kid and args.shape == "python":
        header["kid"] = args.kid
    iat = int(time.time()) + args.iat_offset

    def sign(claims):
        signing_input = part(header) + "." + part(claims)
        signature = key.sign(signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64url(signature)

    if args.shape == "java-impersonated":
        # java.util.HashMap's iteration order for these six keys (Java 17), which Jackson keeps.
        claims = {"authorization": {name: ident}, "sub": args.iss, "aud": "https://fleetengine.googleapis.com/",
                  "iss": args.iss, "exp": iat + args.lifetime, "iat": iat}
    else:
        claims = {"iss": args.iss, "sub": args.iss, "aud": "https://fleetengine.googleapis.com/",
                  "iat": iat, "exp": iat + args.lifetime, "authorization": {name: ident}}
    token = sign(claims)
    forged = dict(claims, authorization={name: ident + "-forged"})
    tampered = part(header) + "." + part(forged) + "." + token.split(".")[2]

    def jwk(public_key, kid):
        numbers = public_key.public_numbers()
        return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": integer(numbers.n), "e": integer(numbers.e)}

    others = [jwk(rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key(), "%s-other-%d" % (args.kid, i))
              for i in range(args.extra_keys)]
    jwks = {"keys": others + [jwk(key.public_key(), args.kid)]}
    if args.jwks_out:
        fd = os.open(args.jwks_out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(jwks, f)
    json.dump({"token": token, "tampered": tampered, "jwks": jwks, "kid": args.kid}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
