"""Language-server latency: didChange → publishDiagnostics while typing quickly on a 2,000-line
TensorFlow file, cold start → first diagnostics (in a folder of its own, and in a git repository
beside a 10,000-file virtual environment its .gitignore lists), and a load run of 1,000 rapid
edits.

    python bench/lsp_latency.py [--keystrokes 100] [--interval-ms 100 50] [--edits 1000]
                                [--busy N]

Runs `python -m tf_insight_server` over stdio with a pygls client (push diagnostics, UTF-16).
Typing is timed twice per interval: a comment (the code stays the same) and a statement in a
layer's `call` (every key changes the code). 100 ms between keys is a fast typist (120 words a
minute); 50 ms is faster than anyone types for long.
Latency of an edit = time from sending its didChange to the first publishDiagnostics whose
`version` is at least the edit's (a superseded version is never published by design, so its
diagnostics arrive with a later one). Targets: p95 ≤ 100 ms, cold start ≤ 1.5 s, in both
workspaces (issue 28: what surrounds the file must not cost).
The machine's load average is printed: the figures scale with it. `--busy N` runs everything
a second time beside N CPU-bound processes (an oversubscribed machine: N = 1.5 × cores), the
quiet and busy figures printed one after the other in one run.
The server's packages are first compiled to bytecode, as a pip install leaves them (an editable
install under PYTHONDONTWRITEBYTECODE compiles them at every start: 0.3 s more cold start).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tf_insight.check.analyzer import analyze_source

SERVER = [sys.executable, "-m", "tf_insight_server"]

HEADER = '''"""A generated 2,000-line TensorFlow training module for the latency benchmark."""
import numpy as np
import tensorflow as tf
from tensorflow import keras


@tf.custom_gradient
def clip_gradient(x, scale):
    return x, lambda dy: dy * scale

'''
BLOCK = '''

class Block{i}(keras.layers.Layer):
    """Residual block {i}."""

    def __init__(self, units={u}, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units, activation="relu")
        self.norm = keras.layers.LayerNormalization()
        self.dropout = keras.layers.Dropout(rate)

    def build(self, input_shape):
        self.scale = self.add_weight(name="scale", shape=(self.units,), initializer="ones")

    def call(self, inputs, training=None):
        hidden = self.dense(inputs)
        hidden = self.dropout(hidden, training=training)
        return self.norm(hidden * self.scale + inputs)


@tf.function
def train_step_{i}(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = tf.reduce_mean(keras.losses.mean_squared_error(y, logits))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return clip_gradient(loss, 1.0)


def make_dataset_{i}(n=128):
    features = np.random.rand(n, {u}).astype("float32")
    labels = np.random.rand(n, {u}).astype("float32")
    return tf.data.Dataset.from_tensor_slices((features, labels)).batch(32)
'''
HAZARD = '''

class Hazard{i}(keras.layers.Layer):
    @tf.custom_gradient
    def call(self, inputs, training=None):
        return inputs * 2.0, lambda dy: dy * 2.0
'''


def tf_file(lines: int = 2000) -> str:
    """Mostly correct TF/Keras code with a hazard every tenth block (a realistic file)."""
    out, i = HEADER, 0
    while out.count("\n") < lines - 8:
        out += BLOCK.format(i=i, u=16 + i % 4 * 16)
        if i % 10 == 0:
            out += HAZARD.format(i=i)
        i += 1
    return out


class Bench:
    def __init__(self) -> None:
        self.client = LanguageClient("tf-insight-bench", "1")
        self.published: list[tuple[float, int | None, int]] = []  # (time, version, count)
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.append((time.perf_counter(), params.version, len(params.diagnostics)))
            self.event.set()

        @self.client.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(params: types.LogMessageParams) -> None:
            pass

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def on_show(params: types.ShowMessageParams) -> None:
            print(f"  server says: {params.message}")

    @property
    def pid(self) -> int:
        assert self.client._server is not None
        return self.client._server.pid

    async def start(self, root: Path) -> float:
        started = time.perf_counter()
        await self.client.start_io(*SERVER)
        await self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(
                general=types.GeneralClientCapabilities(
                    position_encodings=[types.PositionEncodingKind.Utf16]),
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                        version_support=True))),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")]))
        self.client.initialized(types.InitializedParams())
        return time.perf_counter() - started

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=text)))
        return uri

    def insert(self, uri: str, version: int, line: int, character: int, text: str) -> float:
        sent = time.perf_counter()
        position = types.Position(line=line, character=character)
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=position, end=position), text=text)]))
        return sent

    async def wait_version(self, version: int, timeout: float = 600.0) -> float:
        deadline = time.perf_counter() + timeout
        while True:
            at = first_publish_at_or_after(self.published, version)
            if at is not None:
                return at
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for version {version}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.event.wait(), remaining)


def rss_mb(pid: int) -> float:
    """Resident memory of the server and its analysis worker (its child processes)."""
    total = 0.0
    for each in [pid, *children(pid)]:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def cpu_ms(pid: int) -> float:
    """User + system CPU time of the server and its worker so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for each in [pid, *children(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) * 1000 / ticks
    return total


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def first_publish_at_or_after(published: list[tuple[float, int | None, int]], version: int
                              ) -> float | None:
    for at, v, _ in published:
        if v is not None and v >= version:
            return at
    return None


async def cold_start(root: Path, text: str, where: str) -> None:
    bench = Bench()
    started = time.perf_counter()
    initialized = await bench.start(root)
    bench.open(root / "model.py", text)
    first = await bench.wait_version(1)
    cpu = cpu_ms(bench.pid)
    print(f"cold start {where}: initialize answered in {initialized * 1000:.0f} ms; "
          f"first diagnostics {(first - started) * 1000:.0f} ms after launch "
          f"(target ≤ 1500 ms); CPU used by then: {cpu:.0f} ms (server + worker)")
    await bench.stop()


def ignored_venv(root: Path, files: int = 10_000) -> None:
    """Make `root` a git repository with a virtual environment of `files` Python files (hard
    links to this interpreter's own) under a name its .gitignore lists."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("tfenv/\n")
    venv = root / "tfenv"
    site = venv / "lib" / "site-packages"
    site.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    sources = list(Path(sysconfig.get_paths()["purelib"]).rglob("*.py"))
    for index in range(files):
        source = sources[index % len(sources)]
        target = site / f"copy_{index // len(sources)}" / f"{index}_{source.name}"
        target.parent.mkdir(exist_ok=True)
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)


# What is typed, one key at a time: a comment (the code does not change), and a statement in
# a layer's `call` (every key changes the code; many intermediate texts do not parse; the
# last one does).
SCENARIOS = {
    "a comment": "# typing quickly: " + "the quick brown fox jumps over the lazy dog " * 2,
    "a statement in a layer's call":
        "scaled = tf.reduce_sum(hidden * self.scale, axis=-1) * 2.0 + tf.reduce_mean(inputs)",
}


class Document:
    """The benchmark's copy of the document: edits are applied here and sent to the server."""

    def __init__(self, bench: Bench, uri: str, text: str) -> None:
        self.bench, self.uri, self.lines, self.version = bench, uri, text.split("\n"), 1

    def insert(self, line: int, column: int, text: str) -> tuple[int, float]:
        self.version += 1
        current = self.lines[line]
        self.lines[line:line + 1] = (current[:column] + text + current[column:]).split("\n")
        return self.version, self.bench.insert(self.uri, self.version, line, column, text)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


async def typing(root: Path, text: str, keystrokes: int, intervals: list[float], edits: int
                 ) -> None:
    bench = Bench()
    await bench.start(root)
    document = Document(bench, bench.open(root / "model.py", text), text)
    await bench.wait_version(1)
    rss_before = rss_mb(bench.pid)
    middle = len(document.lines) // 2
    for interval in intervals:
        for scenario, typed in SCENARIOS.items():
            if scenario == "a comment":
                line, column = middle, 0
            else:  # a new line in the `call` nearest the middle, indented as its body
                line = next(i for i in range(middle, len(document.lines))
                            if document.lines[i].startswith("        return self.norm("))
                column = 8
            version, _ = document.insert(line, 0, " " * column + "\n")
            await bench.wait_version(version)
            sent: dict[int, float] = {}
            for char in typed[:keystrokes]:
                version, sent[version] = document.insert(line, column, char)
                column += 1
                await asyncio.sleep(interval)
            await bench.wait_version(version)
            # every version up to the last has a publish at or after it: the last one's
            latencies = [await bench.wait_version(v) - at for v, at in sent.items()]
            own = [at - sent[v] for at, v, _ in bench.published if v in sent]
            print(f"typing {scenario}: {len(sent)} keys every {interval * 1000:.0f} ms "
                  f"({60 / interval / 5:.0f} words/min) on a {len(document.lines)}-line file "
                  f"→ {len(own)} publishes")
            print(f"  didChange → fresh diagnostics: p50 {percentile(latencies, .5) * 1000:.0f} ms, "
                  f"p95 {percentile(latencies, .95) * 1000:.0f} ms, "
                  f"max {max(latencies) * 1000:.0f} ms (target p95 ≤ 100 ms)")
            if own:
                print(f"  a published version's own edit → its publish: "
                      f"p50 {percentile(own, .5) * 1000:.0f} ms")
    info = await bench.client.protocol.send_request_async("tfInsight/serverInfo", {})
    core = getattr(info, "analysisSecondsP50", None)
    cpu = getattr(info, "analysisCpuSecondsP50", None)
    if core is not None:
        print(f"  analysis of the file in the worker (incremental parse + rules): "
              f"p50 {core * 1000:.0f} ms per run"
              + (f" ({cpu * 1000:.0f} ms of CPU: the figure without other load)" if cpu else ""))

    # load: rapid edits without waiting, then the final state must be exact
    start_count = len(bench.published)
    peak = rss_mb(bench.pid)
    burst_started = time.perf_counter()
    for i in range(edits):
        document.insert(middle, i, "x" if i % 2 else "y")
        if i % 100 == 0:
            peak = max(peak, rss_mb(bench.pid))
            await asyncio.sleep(0)
    sent_all = time.perf_counter()
    # requests are answered in order after the notifications before them: this times how
    # long the server took to read and apply the edits
    await bench.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.showRule", arguments=["TFI001"]))  # answered on the event loop
    drained = time.perf_counter()
    done = await bench.wait_version(document.version)
    peak = max(peak, rss_mb(bench.pid))
    burst = bench.published[start_count:]
    versions = [v for _, v, _ in burst]
    final_version, final_count = burst[-1][1], burst[-1][2]
    expected = len(analyze_source(document.text, "model.py").findings)
    print(f"load: {edits} rapid edits sent in {(sent_all - burst_started) * 1000:.0f} ms; "
          f"applied by the server {(drained - sent_all) * 1000:.0f} ms after the last one; "
          f"final diagnostics {(done - sent_all) * 1000:.0f} ms after the last edit; "
          f"{len(burst)} publishes (versions {versions[:3]}…{versions[-1:]})")
    intermediate = [v for v in versions if v is not None and v < document.version]
    ordered = all(a is not None and b is not None and a <= b for a, b in itertools.pairwise(versions))
    print(f"  last publish is version {final_version} of {document.version} "
          f"({final_count} findings, {expected} expected); intermediate publishes (one "
          f"analysis behind at most): {len(intermediate)}; versions in order: {ordered}")
    print(f"  server + worker memory: {rss_before:.0f} MB before, peak {peak:.0f} MB, "
          f"after {rss_mb(bench.pid):.0f} MB")
    ok = final_version == document.version and final_count == expected and ordered
    print(f"  no stale diagnostics: {'yes' if ok else 'NO'}")
    await bench.stop()


@contextlib.contextmanager
def cpu_bound(processes: int) -> Iterator[None]:
    """`processes` busy loops at normal priority beside the server, ended afterwards."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(processes)]
    try:
        time.sleep(0.5 if hogs else 0)  # running before the first measurement
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--keystrokes", type=int, default=100)
    parser.add_argument("--interval-ms", type=float, nargs="+", default=[100.0, 50.0],
                        help="time between keys (100 ms: a fast typist, 120 words/min)")
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="then again beside N CPU-bound processes (1.5 × cores: 3 here)")
    options = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for package in ("tf_insight", "tf_insight_server"):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        compileall.compile_dir(spec.submodule_search_locations[0], quiet=1)
    text = tf_file(options.lines)
    for busy in [0, options.busy] if options.busy else [0]:
        print(f"\n== beside {busy} CPU-bound processes ==" if busy else "\n== quiet ==")
        with tempfile.TemporaryDirectory() as folder, cpu_bound(busy):
            root = Path(folder)
            (root / "model.py").write_text(text, encoding="utf-8")
            await cold_start(root, text, "in a folder of its own")
            with tempfile.TemporaryDirectory() as repository:
                ignored_venv(Path(repository))
                (Path(repository) / "model.py").write_text(text, encoding="utf-8")
                await cold_start(Path(repository), text, "beside a 10,000-file ignored venv")
            await typing(root, text, options.keystrokes,
                         [ms / 1000 for ms in options.interval_ms], options.edits)


if __name__ == "__main__":
    asyncio.run(main())
