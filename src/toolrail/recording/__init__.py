"""The recording side of the railway, off the call path: the events a call emits
(`events`), fanning them out to sinks (`sinks`), progress text for UIs (`stream`,
`narration`, `ui`), the JSONL call log (`jsonl`), the events' JSON form (`eventjson`) and
reading the log back (`logreader`). The names users need are re-exported by `toolrail`."""
