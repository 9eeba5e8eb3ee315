"""The one redaction policy: secrets never reach a log, a screen, a file or a diagnostic.

Every place a value can surface uses it — the JSONL log (arguments, outputs, error messages
and details), the stream handler's progress text, spill files, library diagnostics, the
MCP server's error text, and the errors a call returns (`ExecutionFailed.from_exception`
and every `ArgumentIssue` redact their text when they are made):

- `is_secret_key(name)`: whether a name names a secret, in any spelling (`api_key`,
  `apiToken`, `dbPassword`, `secretKey`, `signingKey`, `X-Api-Key`, `Authorization`,
  `AccountKey`, `dsn`, `connectionString`, `DATABASE_URL`, `mfa_code`, `otp`, `masterKey`,
  `license_key`, `ssh_key`, `sig` and `X-Amz-Signature` (presigned URLs), ...); not
  `max_tokens`, `tokenizer`, nor `session` (a word too common to hide on its own; session
  ids and tokens are caught as `sessionId` and `session_token`), nor a reference to where a
  secret is kept (`secretKeyRef`, `passwordSecretRef`);
- `redact(value)`: a copy of JSON-like data where values under secret-named keys are
  replaced, a key that is a secret itself (`{"sk-...": 1}`, `{"password=x": 1}`) is
  redacted as text (`redact_name`; its entry stays, under a name of its own), argv flags
  like `--password X` / `--token=X` lose their values (`mysql -pX`, `sshpass -pX`, and
  curl's `-u user:pw` its password), a pair `["Authorization", "..."]` loses its second
  item, a name/value entry (`{"name": "DB_PASSWORD", "value": "..."}`, `{"Key": "password",
  "Value": ...}`, `ParameterKey`/`ParameterValue`; an argv's flags, `--name
  /prod/db/password --value X`) its value, as `{name: value}` would, and every string goes
  through `redact_text`;
- `redact_text(text)`: token-like substrings replaced — provider keys (`sk-...`,
  `sk-ant-...`), GitHub (`ghp_`, `gho_`, `github_pat_`), GitLab, Slack, AWS (`AKIA...`),
  Google (`AIza...`), Stripe, Hugging Face, npm, PyPI, JWTs — at the start of a run of token
  characters or after `.`, `_`, `-`, and the distinctive prefixes (`sk-ant-`, `sk-proj-`,
  `ghp_`, `github_pat_`, `AKIA`, `xoxb-`, `sk_live_`, `hf_`, `npm_`, `pypi-`, `glpat-`)
  anywhere, even glued to what precedes them (`Xghp_...`); PEM private keys (encrypted ones,
  and with escaped `\n` inside JSON text); any `Authorization:` value whatever its scheme,
  and `Cookie:` / `Set-Cookie:` values; `Bearer`/`Basic` credentials; `user:pass@` in URLs
  (to the last `@`, or with a `/` in the password; the user may be empty,
  `redis://:pass@host`) and a long token as the user (`https://TOKEN@host`); a Slack webhook
  URL's path; `mysql -pX`, `sshpass -p X`, `curl -u user:X`, `.netrc`'s `password X`, a
  URL's `?key=X`; the value a command storing a secret stores, its names, keys, flags and
  paths kept, in text or an argv (`gh secret set N --body X`, `echo X | gh secret set N`,
  `fly secrets set K=X`, `vault kv put p k=X`, `kubectl create secret generic
  --from-literal=k=X`, `heroku config:set K=X`; `gh secret list` stays); a call setting a
  secret by its name (`setenv("API_KEY", "X")`, `os.environ["API_KEY"] = "X"`); and `name = value`
  / `name: value` / `"name": "value"` (also inside JSON text; and `=>`, `->`, `→`, `：`,
  `＝`, any Unicode space, a YAML value on the lines below
  `name:`, an XML element `<name>value</name>` (with attributes or a namespace,
  `<wsse:Password Type="...">`, its text to its own closing tag, cut off or not, or a CDATA
  section's content: `<![CDATA[[REDACTED]]]>`), a table's
  row `| name | value |` (psql's, box-drawn, names and values in backticks; a cell saying a
  type, a schema's word or a placeholder is no value: `| password | string | yes |`))
  wherever `is_secret_key(name)` holds, so text and mapping keys share one notion of a
  secret name (`secretKey=`, `AccountKey=`, `DB_PASSWORD=`, `SECRET_KEY_BASE=`), and
  `--secret X` in text, or as an argv's items in a YAML block list (`- --secret` then `-
  X`), read as `redact` reads the list, and a name/value entry written as YAML (`- name:
  DB_PASSWORD` then `value: X`; indented JSON text too) or as a mapping on one line (JSON
  text cut off or after a log's prefix, a Python repr, a YAML flow mapping) or as pairs on
  one line outside any brackets (`name=DB_PASSWORD value=X`, a command's `--name
  DB_PASSWORD --value X` (PowerShell's `-Name N -Value X` too; over continued lines, or as
  an argv's items written out, `'--value', 'X'`), quoted `\\"` in JSON text or `\\'` in a
  Python repr too, an XML element's attributes, over lines, a JSON fragment) or as XML elements
  (`<name>DB_PASSWORD</name>` and `<value>X</value>` within one parent, or `<entry
  key="password">X</entry>`), read as `redact` reads it. A flag's or a name's value in other
  quotes (`--token「X」`, `“X”`, `«X»`; not closed, to the line's end) goes with its quotes
  kept, and terminal codes in a flag's item (raw or spelt `\\x1b`, `\\u001b`, `\\033`) hide
  nothing. The value goes whole, whatever it is: a string read with its escapes, a number, a
  list or an object to its matching bracket (JSON text stays JSON: `"passwords":
  "[REDACTED]"`, as `redact` gives for the data), or to the end of text cut off inside it (a
  preview). JSON text that is a document whole is redacted as its data is, by `redact`, and
  written as it was (indented or not): text and data agree by construction, and JSON text
  held in its strings is read as JSON at any depth. In other text (a line of a log, a
  preview cut off) each JSON string is also redacted as the text it holds, decoded. Text
  holding HTML entities (`{&quot;password&quot;: &quot;X&quot;}`, `password=&quot;X&quot;`,
  `&lt;password&gt;X&lt;/password&gt;`, `&#34;token&#34;: &#34;X&#34;`, `password&#61;X`) is
  read with them decoded, escaped more than once too (`&amp;quot;`, up to 4 times), as well
  as as it is written: what is hidden goes in its own spelling, entities included, and the
  text around it stays as written (`Tom &amp; Jerry`, `Tom &amp;amp; Jerry`
  too). A value never starts with a separator (`?password=&user=x`, `Password=;Database=x`,
  `{password=}`: an empty value);
- `redact_name(name)`: a name someone supplied (a key, the tool a model asked for when no
  tool answers to it) as it may be shown: `redact_text`, remembered for names that recur;
- `cut(value, max_bytes)`: redacted, then cut to size with a marker — the redaction looks
  past the cut, so a secret straddling it is replaced whole, never left as a prefix.

Every pattern is linear: no overlapping quantifiers, every repeat bounded or possessive
over what the next part cannot match, so a hostile 10 MB output costs a few passes over
it, never a backtracking stall.

>>> redact_text("export DB_PASSWORD=hunter2 --verbose")
'export DB_PASSWORD=[REDACTED] --verbose'

Its modules, each one responsibility: `names` (which names name a secret), `markers`,
`reading` (what every text pass reads with), `text` (`redact_text` and the order of its
passes), `entities` (text read with its HTML entities decoded) and the passes: `tokens`,
`commands`, `stores` (commands storing a secret: the table) with `secret_commands` (read
in text), `calls`, `curl`, `markup` (an HTML element's attributes saying a value is one),
`held` (JSON strings), `jsontext` (JSON and JSONC text, whole or inside other text),
`listed_argv` (an argv as a list of quoted items), `flags`,
`assignments`, `yaml_argv`, `entries` with `yaml_entries`, `line_entries` and
`pair_entries`, over `quotes` and `structures`; `argv` and `data` (`redact` of data);
`terminal` (`printable`) and `cutting` (`cut`, `shorten`, `shown_name`).
"""

from __future__ import annotations

from toolrail.core.redact.cutting import cut as cut
from toolrail.core.redact.cutting import shorten as shorten
from toolrail.core.redact.cutting import shown_name as shown_name
from toolrail.core.redact.cutting import truncate as truncate
from toolrail.core.redact.data import redact as redact
from toolrail.core.redact.data import redact_name as redact_name
from toolrail.core.redact.data import redacts_nothing as redacts_nothing
from toolrail.core.redact.markers import MAX_DEPTH as MAX_DEPTH
from toolrail.core.redact.markers import REDACTED as REDACTED
from toolrail.core.redact.markers import TOO_DEEP as TOO_DEEP
from toolrail.core.redact.names import hides_next as hides_next
from toolrail.core.redact.names import is_secret_key as is_secret_key
from toolrail.core.redact.terminal import printable as printable
from toolrail.core.redact.text import redact_text as redact_text

__all__ = [
    "MAX_DEPTH",
    "REDACTED",
    "TOO_DEEP",
    "cut",
    "hides_next",
    "is_secret_key",
    "printable",
    "redact",
    "redact_name",
    "redact_text",
    "redacts_nothing",
    "shorten",
    "shown_name",
    "truncate",
]
