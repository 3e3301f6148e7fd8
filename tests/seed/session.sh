# "A complete session, copy-paste" from seeds/000 (MCP Server), verbatim.
omgdb create app.omgdb
omgdb insert app.omgdb users '{"name":"ana","age":30}'

printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"path":"app.omgdb","collection":"users","filter":{"age":{"$gte":21}}}}}' \
| omgdb mcp
