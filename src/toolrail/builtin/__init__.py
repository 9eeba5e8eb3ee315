"""Built-in tools.

    read_path            read a file or list a directory, inside the project root
    write_context_file   write an allowed context file (PROJECT.md, ...) atomically
    shell                run an allow-listed program without a shell
    generate_inventory   the project's files, honouring .gitignore, bounded
    learn                record a lesson in .toolrail/lessons.jsonl
    complete             hand control back to the orchestrator
    end_conversation     end the conversation

`make_write_context_file(...)` and `make_shell(...)` build configured variants.
"""

from toolrail.builtin.control import complete as complete
from toolrail.builtin.control import end_conversation as end_conversation
from toolrail.builtin.files import make_write_context_file as make_write_context_file
from toolrail.builtin.files import read_path as read_path
from toolrail.builtin.files import write_context_file as write_context_file
from toolrail.builtin.inventory import generate_inventory as generate_inventory
from toolrail.builtin.learn import learn as learn
from toolrail.builtin.shell import Program as Program
from toolrail.builtin.shell import make_shell as make_shell
from toolrail.builtin.shell import shell as shell

ALL = (read_path, write_context_file, shell, generate_inventory, learn, complete, end_conversation)

__all__ = [
    "ALL",
    "Program",
    "complete",
    "end_conversation",
    "generate_inventory",
    "learn",
    "make_shell",
    "make_write_context_file",
    "read_path",
    "shell",
    "write_context_file",
]
