"""bookrule's command table, read from the built binary's `bookrule help --json` (docs/packaging.md).

The man page (make-man.py) and the shell completions (make-completions.py) are made from this, and the binary
makes the table from the same declarations its parser and its --help use (Sources/bookrule/CommandLine/), so
the three never differ. Nothing here knows a command or a flag by name.
"""

import json
import subprocess
from dataclasses import dataclass, field


@dataclass
class Flag:
    names: list            # ["-h", "--help"]
    argument: str = ""     # "FILE", "" for a switch
    description: str = ""
    kind: str = "none"     # what the argument completes to: json (source files), dir, file, choice or none
    choices: list = field(default_factory=list)
    repeats: bool = False

    @staticmethod
    def from_json(option):
        kind = option["completion"] if option.get("argument") else "none"
        return Flag(option["names"], option.get("argument") or "", option["summary"], kind, option["choices"],
                    option["repeats"])


@dataclass
class Page:
    """One help text of a command, in parts: its usage lines, prose, option groups and closing notes."""
    usage: list
    about: str
    groups: list           # [(title, [Flag], note)]
    notes: str
    text: str


@dataclass
class Command:
    name: str
    summary: str
    flags: list = field(default_factory=list)
    subcommands: list = field(default_factory=list)
    takes_paths: bool = False                          # a positional argument is a file or folder
    operands: str = "none"
    pages: list = field(default_factory=list)


@dataclass
class Table:
    version: str
    usage: str
    exit_status: str
    global_flags: list
    commands: list


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(arguments)} exited with {result.returncode}: {result.stderr}")
    return result.stdout


def table(binary):
    """The whole table of `bookrule help --json`."""
    listing = json.loads(run(binary, "help", "--json"))
    commands = []
    for entry in listing["commands"]:
        pages = [Page(page["usage"], page["about"],
                      [(group["title"], [Flag.from_json(o) for o in group["options"]], group.get("note"))
                       for group in page["groups"]],
                      page["notes"], page["text"]) for page in entry["pages"]]
        commands.append(Command(entry["name"], entry["summary"], [Flag.from_json(o) for o in entry["options"]],
                                entry["subcommands"], entry["operands"] in ("file", "dir", "json"), entry["operands"],
                                pages))
    return Table(listing["version"], listing["usage"], listing["exitStatus"],
                 [Flag.from_json(o) for o in listing["globalOptions"]], commands)
