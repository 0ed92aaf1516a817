# goodput: one static, cgo-free binary on a distroless base, run as non-root.
#   make image    (docker build --build-arg VERSION=… --build-arg COMMIT=… -t goodput:$(VERSION) .)
# Cross-builds with BuildKit: docker buildx build --platform linux/amd64,linux/arm64 …

ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
ARG COMMIT=unknown
# The toolchain of the image builds; nothing else is downloaded but modules.
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
WORKDIR /src
# Modules first: this layer is rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# arrow_json_stdlib: as in the Makefile, arrow-go without goccy/go-json.
RUN GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -buildvcs=false -tags arrow_json_stdlib \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/goodput ./cmd/goodput

# distroless static: CA certificates, tzdata, /etc/passwd with nonroot
# (65532); no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG COMMIT=unknown
LABEL org.opencontainers.image.title="goodput" \
      org.opencontainers.image.description="Load generator and reproducible benchmark harness for OpenAI-compatible LLM servers" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.source="https://github.com/goodput-dev/goodput"
COPY --from=build /out/goodput /usr/local/bin/goodput
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/goodput"]
