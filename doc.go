// Package gochunk splits documents into chunks for retrieval-augmented
// generation (RAG).
//
// A [Chunker] turns a [Document] into [Chunk]s. Every chunk is made of one or
// more [Span]s of the input, each with exact byte and code-point offsets, so
// that Document.Text[span.Start:span.End] is the span's text. Every chunker in
// this module keeps the same contract:
//
//   - exact offsets: spans index the input text, byte- and rune-wise;
//   - a hard size limit: no chunk is larger than its configured maximum, in the
//     unit of its token counter (see package tokenize);
//   - nothing lost: without overlap, the chunks cover every non-whitespace
//     character of the input exactly once;
//   - determinism: the same input and configuration give the same chunks;
//   - clear errors for bad input (invalid UTF-8, impossible sizes), never a
//     panic.
//
// The chunkers themselves live in sub-packages (split for the rule-based
// family); package chunkers builds any of them by name from a JSON
// configuration, which is what the gochunk command and server use.
package gochunk
