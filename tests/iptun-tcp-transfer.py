#! /usr/bin/env python3
# Copyright (c) 2026 The ovs-iptun authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""TCP transfer across two network namespaces, checked end to end.

usage: iptun-tcp-transfer.py SERVER_NS SERVER_ADDR CLIENT_NS NBYTES [PORT]

Starts a TCP server in SERVER_NS on SERVER_ADDR:PORT, sends NBYTES of
pseudo-random data to it from CLIENT_NS, and prints the byte count and
SHA-256 seen on each side.  Exits 0 only if both match.
"""

import hashlib
import os
import random
import socket
import subprocess
import sys


def serve(addr, port):
    srv = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(60)
    print("listening", flush=True)
    conn, _ = srv.accept()
    conn.settimeout(60)
    digest = hashlib.sha256()
    total = 0
    while True:
        data = conn.recv(65536)
        if not data:
            break
        digest.update(data)
        total += len(data)
    print(total, digest.hexdigest(), flush=True)


def send(addr, port, nbytes):
    rng = random.Random(4)
    digest = hashlib.sha256()
    sock = socket.create_connection((addr, port), timeout=60)
    left = nbytes
    while left:
        chunk = rng.randbytes(min(left, 65536))
        sock.sendall(chunk)
        digest.update(chunk)
        left -= len(chunk)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)
    sock.close()
    print(nbytes, digest.hexdigest(), flush=True)


def main():
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
        return 0
    if sys.argv[1] == "--send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return 0

    server_ns, addr, client_ns, nbytes = sys.argv[1:5]
    port = sys.argv[5] if len(sys.argv) > 5 else "5001"
    me = [sys.executable, os.path.abspath(__file__)]
    server = subprocess.Popen(
        ["ip", "netns", "exec", server_ns] + me + ["--serve", addr, port],
        stdout=subprocess.PIPE, text=True)
    if server.stdout.readline().strip() != "listening":
        print("server did not start")
        return 1
    client = subprocess.run(
        ["ip", "netns", "exec", client_ns] + me
        + ["--send", addr, port, nbytes],
        stdout=subprocess.PIPE, text=True, timeout=120)
    received = server.communicate(timeout=120)[0].strip()
    sent = client.stdout.strip()
    print("sent:     " + sent)
    print("received: " + received)
    return 0 if sent and sent == received else 1


if __name__ == "__main__":
    sys.exit(main())
