# omgdb container image: a Debian 12 build stage with the same packages `make deps` installs,
# and a slim runtime stage running as a non-root user with a volume for stores.
#   docker build -t omgdb .
#   docker run -i --rm -v omgdb-data:/data omgdb                 # stdio MCP server
#   docker run --rm -v omgdb-data:/data omgdb create /data/app.omgdb
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN apt-get update && OMGDB_DEPS_EXTRA="" bash scripts/deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake --preset release -DBUILD_TESTING=OFF && cmake --build --preset release -j"$(nproc)" --target omgdb

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      librocksdb7.8 libbson-1.0-0 libpcre2-8-0 libboost-json1.81.0 libboost-url1.81.0 libssl3 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /data --shell /usr/sbin/nologin omgdb
COPY --from=build /src/build/release/omgdb /usr/local/bin/omgdb
USER omgdb
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/omgdb"]
CMD ["mcp"]
