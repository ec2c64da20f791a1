"""Worker threads: one finishes, one raises; the main thread ends normally."""

import threading


def work(results):
    results.append(sum(range(1000)))


def fail():
    raise RuntimeError("worker failed")  # @thread-raise


results = []
workers = [
    threading.Thread(target=work, args=(results,)),
    threading.Thread(target=fail, name="failing"),
]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print("results", results)
