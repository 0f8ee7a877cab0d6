# gochunk: one static binary that chunks, serves and evaluates.
#   docker build -t gochunk .
#   docker run -p 8080:8080 gochunk            # serves the HTTP API
#   docker run -i gochunk chunk - < file.txt    # or any other command
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/gochunk ./cmd/gochunk

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gochunk /gochunk
USER nonroot:nonroot
ENV PORT=8080
EXPOSE 8080
ENTRYPOINT ["/gochunk"]
CMD ["serve"]
