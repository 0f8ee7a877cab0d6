# gochunk: one static binary that chunks, serves and evaluates.
#   docker build -t gochunk .
#   docker run -p 8080:8080 -e GOCHUNK_TOKEN=$TOKEN gochunk  # serves the HTTP API
#   docker run -i gochunk chunk - < file.txt    # or any other command
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# cgo, linked statically: the tree-sitter grammars of the code chunker are
# compiled in, and the binary still needs no library at run time. A static
# binary cannot load a shared library, so onnx: models run on the pure-Go
# backend here (it refuses libonnxruntime with a clear message rather than
# crash); for ONNX Runtime, run the dynamically linked build (go build
# ./cmd/gochunk) beside the library.
RUN CGO_ENABLED=1 go build -tags netgo,osusergo -trimpath \
    -ldflags '-s -w -linkmode external -extldflags "-static"' -o /out/gochunk ./cmd/gochunk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gochunk /gochunk
USER nonroot:nonroot
# Outside a container gochunk serve listens on 127.0.0.1 only; in one it
# must listen on every interface for a published port to reach it (as
# Ollama's image sets OLLAMA_HOST). It warns at start without a token
# (GOCHUNK_TOKEN). PORT, or --port, still chooses the port.
ENV GOCHUNK_ADDR=0.0.0.0 PORT=8080
EXPOSE 8080
ENTRYPOINT ["/gochunk"]
CMD ["serve"]
