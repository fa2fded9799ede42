// Keeps the DocSnippets target non-empty. .ci/check-doc-snippets writes the documentation's
// ```swift package=Coexistence blocks beside this file (*.generated.swift), builds the target,
// then deletes them.
