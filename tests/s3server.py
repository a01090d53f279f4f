"""A real S3-compatible server on 127.0.0.1 for the suite: moto's server mode, behind a proxy.

moto keeps its objects in memory, so stopping it would lose them; the endpoint the corpus
is given is a TCP proxy in front of it instead, which the tests take down (connections
refused, open ones cut: what a client sees of a server that went away) and bring back with
the objects intact. The proxy can also slow every transfer, so that a run lasts long enough
to be interrupted.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

KEY_ID = "locleg-test-key"
SECRET = "locleg-test-secret-never-printed"
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout: float = 60, what: str = "condition") -> None:
    """Poll CONDITION until true; a generous deadline, so a busy machine only waits longer."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Proxy:
    """A TCP forwarder that can go down and come back on the same port."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.delay = 0.0  # seconds added before each forwarded chunk
        self._listener: socket.socket | None = None
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        """Refuse new connections and cut the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would not, and
            # the kernel would go on accepting.
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # not connected: nothing to wake
            listener.close()
        with self._lock:
            for conn in list(self._connections):
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed by its peer
                conn.close()
            self._connections.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by down()
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                if self.delay:
                    time.sleep(self.delay)
                sink.sendall(chunk)
        except OSError:
            pass  # one side went away: end both, as a real connection ends
        finally:
            for s in (source, sink):
                with self._lock:
                    self._connections.discard(s)
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already shut
                s.close()


class S3Server:
    def __init__(self) -> None:
        self.moto_port = free_port()
        self.proxy: Proxy | None = None
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        """What a corpus is given: the proxy in front of moto."""
        assert self.proxy is not None
        return f"http://127.0.0.1:{self.proxy.port}"

    @property
    def env(self) -> dict[str, str]:
        """The standard variables s3fs/botocore read: endpoint, credentials, region."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": KEY_ID,
                "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_DEFAULT_REGION": REGION}

    def start(self) -> S3Server:
        moto = shutil.which("moto_server", path=str(Path(sys.executable).parent))
        if moto is None:
            raise RuntimeError("moto_server not found: run `make install` (the test extra)")
        self.process = subprocess.Popen(
            [moto, "-H", "127.0.0.1", "-p", str(self.moto_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._answers, what="moto_server to answer")
        self.proxy = Proxy(self.moto_port)
        self.proxy.up()
        return self

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"moto_server exited with {self.process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.moto_port}/", timeout=5):
                return True
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.down()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def client(self):
        """A boto3 client straight to moto (not through the proxy), for the tests' own looks."""
        import boto3

        return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{self.moto_port}",
                            aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET,
                            region_name=REGION)

    def create_bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                        Prefix=prefix)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]


# The IAM action S3 checks for a request, and the names moto >= 5.2 checks instead: moto
# now authorises a request by its API operation's name (a HEAD is "s3:HeadObject", where S3
# asks for s3:GetObject). A grant names the real action; the policy carries moto's names too,
# so a limited key is refused and allowed as on S3, with either moto.
_MOTO_NAMES = {
    "s3:GetObject": ["s3:HeadObject"],
    "s3:ListBucket": ["s3:ListObjectsV2", "s3:ListObjects", "s3:HeadBucket"],
    "s3:PutObject": ["s3:CreateMultipartUpload", "s3:UploadPart", "s3:CompleteMultipartUpload"],
}


class CheckingS3Server:
    """moto's S3 server that checks credentials, as a real one does: an IAM user with an S3
    policy and its access key are made while moto still lets anyone in (its
    INITIAL_NO_AUTH_ACTION_COUNT), then every request must be signed with that key."""

    def __init__(self, bucket: str, limited: dict[str, list[str]] | None = None) -> None:
        """LIMITED: users of their own key that may do only some things, name -> the S3
        actions and keys they may do them on ("s3:PutObject o/0*"); the bucket's name is
        put before each key."""
        self.port = free_port()
        self.bucket = bucket
        self.limited = limited or {}
        self.keys: dict[str, tuple[str, str]] = {}  # a limited user's (key id, secret)
        self.process: subprocess.Popen | None = None
        self.key_id = self.secret = ""

    @property
    def setup_actions(self) -> int:
        """The bucket, then per user: itself, its key, its policy."""
        return 1 + 3 * (1 + len(self.limited))

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, key_id: str | None = None, secret: str | None = None) -> dict[str, str]:
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_DEFAULT_REGION": REGION,
                "AWS_ACCESS_KEY_ID": self.key_id if key_id is None else key_id,
                "AWS_SECRET_ACCESS_KEY": self.secret if secret is None else secret}

    def start(self) -> CheckingS3Server:
        import json

        import boto3

        moto = shutil.which("moto_server", path=str(Path(sys.executable).parent))
        if moto is None:
            raise RuntimeError("moto_server not found: run `make install` (the test extra)")
        env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(self.setup_actions)}
        self.process = subprocess.Popen([moto, "-H", "127.0.0.1", "-p", str(self.port)],
                                        env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        # Wait on the port, not on an HTTP answer: moto counts any answered request as one of
        # the actions it lets in unchecked.
        wait_for(self._listening, what="moto_server to listen")
        anyone = {"endpoint_url": self.endpoint, "region_name": REGION,
                  "aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
        boto3.client("s3", **anyone).create_bucket(Bucket=self.bucket)
        iam = boto3.client("iam", **anyone)
        iam.create_user(UserName="locleg")
        key = iam.create_access_key(UserName="locleg")["AccessKey"]
        iam.put_user_policy(UserName="locleg", PolicyName="originals", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        self.key_id, self.secret = key["AccessKeyId"], key["SecretAccessKey"]
        for user, grants in self.limited.items():
            iam.create_user(UserName=user)
            key = iam.create_access_key(UserName=user)["AccessKey"]
            statements = [{"Effect": "Allow", "Action": [action, *_MOTO_NAMES.get(action, [])],
                           "Resource": f"arn:aws:s3:::{self.bucket}" + (f"/{on}" if on else "")}
                          for action, _, on in (g.partition(" ") for g in grants)]
            iam.put_user_policy(UserName=user, PolicyName="limited", PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": statements}))
            self.keys[user] = (key["AccessKeyId"], key["SecretAccessKey"])
        return self

    def _listening(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"moto_server exited with {self.process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
            return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def set_env(server: S3Server) -> dict[str, str]:
    """The environment of a child process that talks to SERVER."""
    return {**os.environ, **server.env}
