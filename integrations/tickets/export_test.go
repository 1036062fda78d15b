package tickets

// ExportNameMirror exposes nameMirror to the external tests.
var ExportNameMirror = nameMirror
