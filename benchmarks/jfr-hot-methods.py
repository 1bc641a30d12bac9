#!/usr/bin/env python3
"""Hot methods of a JFR recording (JDK 17 has no `jfr view hot-methods`).

usage: benchmarks/jfr-hot-methods.py recording.jfr [top [method-substring ...]]

Reads `jfr print --json --events jdk.ExecutionSample` and prints, for the top methods, the share
of samples where the method is on top of the stack (self) and anywhere on it (total), and the
share of samples per code area (our library, our demo, Camel, Netty, JDK, ...) by top frame and
by the first frame outside the JDK (who called the JDK code), and
the total share of the methods whose name contains each given substring.
"""
import collections
import json
import subprocess
import sys

AREAS = [("io.github.agentlb.demo", "demo proxy"), ("io.github.agentlb", "our library"),
         ("org.apache.camel.component.netty", "camel-netty"), ("org.apache.camel", "camel core"),
         ("io.netty", "netty"), ("io.micrometer", "micrometer"), ("org.apache.logging", "log4j"),
         ("com.fasterxml", "jackson"), ("java.", "jdk"), ("jdk.", "jdk"), ("sun.", "jdk")]


def area(name):
    for prefix, label in AREAS:
        if name.startswith(prefix):
            return label
    return "other"


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    patterns = sys.argv[3:]
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample", path],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    self_counts, total_counts = collections.Counter(), collections.Counter()
    areas, callers = collections.Counter(), collections.Counter()
    for event in events:
        frames = event["values"]["stackTrace"]["frames"]
        names = [f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"] for f in frames]
        if not names:
            continue
        self_counts[names[0]] += 1
        areas[area(names[0])] += 1
        callers[next((area(name) for name in names if area(name) != "jdk"), "jdk")] += 1
        for name in set(names):
            total_counts[name] += 1
    n = len(events)
    print(f"{n} execution samples")
    print("| area | top frame | first frame outside the JDK |")
    print("|---|---:|---:|")
    for label, count in callers.most_common():
        print(f"| {label} | {100 * areas[label] / n:.1f}% | {100 * count / n:.1f}% |")
    print()
    print("| method (top frame) | self | total |")
    print("|---|---:|---:|")
    for name, count in self_counts.most_common(top):
        print(f"| `{name}` | {100 * count / n:.1f}% | {100 * total_counts[name] / n:.1f}% |")
    if patterns:
        print()
        print("| method (anywhere on the stack) | total |")
        print("|---|---:|")
        for pattern in patterns:
            for name, count in sorted(total_counts.items(), key=lambda e: -e[1]):
                if pattern in name:
                    print(f"| `{name}` | {100 * count / n:.1f}% |")


if __name__ == "__main__":
    main()
