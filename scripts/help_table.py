"""bookrule's command table, read from the built binary's own --help (docs/packaging.md).

The man page (make-man.py) and the shell completions (make-completions.py) are made from this, so they say what
`bookrule --help` and `bookrule <command> --help` say and never differ from them. Nothing here knows a command
or a flag by name: the commands are the ones the top-level usage lists, the flags the ones each command's help
lists (its usage lines and its option lines).
"""

import re
import subprocess
from dataclasses import dataclass, field

# An option line: two or more spaces, then a flag. Its description starts after a gap of two spaces or more,
# or, where a long flag leaves one space only, after the flag's argument names.
OPTION_LINE = re.compile(r"^ {2,}(-{1,2}[A-Za-z].*)$")
FLAG = re.compile(r"^(-{1,2}[A-Za-z][\w-]*),?$")
# An argument name: FILE, SECONDS, URL=FILE, OUT.json, FILE|DIR…, or a choice such as t2s|s2t.
ARGUMENT = re.compile(r"^(?:[A-Z][A-Z0-9_.=/|…]*|[a-z0-9]+(?:\|[a-z0-9]+)+)(?:…)?,?$")
HELP_REFERENCE = re.compile(r"see ([a-z]+ --[\w-]+ \w+) --help")


@dataclass
class Flag:
    names: list            # ["-h", "--help"]
    argument: str = ""     # "FILE", "" for a switch
    description: str = ""

    @property
    def kind(self):
        """What the flag's argument completes to: json (source files), dir, file, choice or none."""
        return argument_kind(self.argument, self.names)


@dataclass
class Command:
    name: str
    summary: str
    help: str = ""
    extra_help: list = field(default_factory=list)   # [(invocation, text)]: help a command's text points to
    flags: list = field(default_factory=list)
    subcommands: list = field(default_factory=list)
    takes_paths: bool = False                          # a positional argument is a file or folder


def argument_kind(argument, names=()):
    if not argument:
        return "none"
    if "--source" in names or "--sources" in names:
        return "json"
    bare = argument.rstrip(",…").split("=")[-1]
    if "|" in bare and bare.lower() == bare:
        return "choice"
    if bare == "DIR":
        return "dir"
    if re.search(r"FILE|DIR|PATH|HAR|SOURCE|\.json|\.xml|PAGE", bare):
        return "file"
    return "none"


def run(binary, *arguments):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(arguments)} exited with {result.returncode}: {result.stderr}")
    return result.stdout


def split_option(text):
    """'--source FILE       Book source …' -> (names, argument, description)."""
    gap = re.search(r" {2,}", text)
    spec, description = (text[:gap.start()], text[gap.end():]) if gap else (text, "")
    names, arguments, rest = [], [], []
    tokens = spec.split(" ")
    for index, token in enumerate(tokens):
        if FLAG.match(token):
            names.append(FLAG.match(token).group(1))
        elif ARGUMENT.match(token) and names:
            arguments.append(token.rstrip(","))
        else:
            rest = tokens[index:]
            break
    if rest:
        description = " ".join(rest) + ((" " + description) if description else "")
    return names, (arguments[0] if arguments else ""), description


def options(text):
    """Every flag an --help text lists, on its option lines, with the continuation lines joined."""
    flags, current = [], None
    for line in text.splitlines():
        match = OPTION_LINE.match(line)
        if match:
            names, argument, description = split_option(match.group(1))
            current = Flag(names, argument, description)
            flags.append(current)
        elif current and line.startswith("    ") and line.strip():
            current.description = (current.description + " " + line.strip()).strip()
        else:
            current = None
    return flags


def usage_lines(text):
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("Usage:"):
            inside = True
            lines.append(line[len("Usage:"):].strip())
        elif inside and line.startswith(" ") and line.strip():
            lines.append(line.strip())
        else:
            inside = False
    return lines


def usage_flags_and_positionals(command, lines):
    """Flags the usage lines name (with the argument after each) and whether a positional is a path."""
    flags, takes_paths, subcommands = [], False, []
    for line in lines:
        tokens = [t for t in re.split(r"[\s()\[\]]+", line) if t and t != "|"]
        if len(tokens) < 2 or tokens[0] != "bookrule" or tokens[1] != command:
            continue
        if len(tokens) > 2 and re.fullmatch(r"[a-z]+", tokens[2]) and tokens[2] not in subcommands:
            subcommands.append(tokens[2])
        previous_flag = None
        for token in tokens[2:]:
            if token.startswith("-"):
                previous_flag = Flag([token.rstrip("…")])
                flags.append(previous_flag)
            elif previous_flag and ARGUMENT.match(token):
                previous_flag.argument = previous_flag.argument or token
                previous_flag = None
            else:
                previous_flag = None
                if argument_kind(token) in ("file", "dir"):
                    takes_paths = True
    return flags, takes_paths, subcommands


def commands(binary):
    """The top-level help and every command of its Commands: list, each with its own help read."""
    top = run(binary, "--help")
    table, inside = [], False
    for line in top.splitlines():
        if line.startswith("Commands:"):
            inside = True
        elif inside and not line.strip():
            inside = False
        elif inside:
            match = re.match(r"^  ([a-z][\w-]*)\s{2,}(.*)$", line)
            if match:
                table.append(Command(match.group(1), match.group(2)))
            elif table:
                table[-1].summary += " " + line.strip()
    for command in table:
        command.help = run(binary, command.name, "--help")
        for reference in dict.fromkeys(HELP_REFERENCE.findall(command.help)):
            command.extra_help.append((reference, run(binary, *reference.split(" "), "--help")))
        texts = [command.help] + [text for _, text in command.extra_help]
        listed = [flag for text in texts for flag in options(text)]
        from_usage, command.takes_paths, command.subcommands = usage_flags_and_positionals(
            command.name, [line for text in texts for line in usage_lines(text)])
        known = {name for flag in listed for name in flag.names}
        for flag in from_usage:
            if flag.names[0] not in known:
                listed.append(flag)
                known.add(flag.names[0])
        seen, command.flags = set(), []
        for flag in listed:
            if flag.names[0] not in seen:
                seen.add(flag.names[0])
                command.flags.append(flag)
    return top, table


def global_flags(top):
    return options(top.split("Options for every command:", 1)[-1].split("\n\n", 1)[0])
