# omgdb container image: a Debian 12 build stage with the same packages `make deps` installs,
# and a slim runtime stage running as a non-root user with a volume for stores.
#   docker build -t omgdb .
#   docker run -i --rm omgdb                                   # standalone: tools/list only
#   docker run -i --rm -v omgdb-data:/data omgdb mcp           # stores at /data/NAME.omgdb
#   docker run --rm -p 127.0.0.1:41922:41922 -v omgdb-data:/data -e OMGDB_HTTP_TOKEN \
#     omgdb serve --listen 0.0.0.0:41922 --store-root /data
#   docker run --rm -v omgdb-data:/data omgdb create /data/app.omgdb
# docs/service.md ("Container") explains the choices.
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN apt-get update && bash scripts/deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake --preset release -DBUILD_TESTING=OFF && cmake --build --preset release -j"$(nproc)" --target omgdb \
    && strip build/release/omgdb

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      librocksdb7.8 libbson-1.0-0 libpcre2-8-0 libboost-json1.81.0 libboost-url1.81.0 libssl3 \
      libtomlplusplus3 libsnappy1v5 liblz4-1 libzstd1 libbz2-1.0 libsystemd0 \
      libpq5 libmariadb3 libsqlite3-0 ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --user-group --create-home --home-dir /data --shell /usr/sbin/nologin omgdb
COPY --from=build /src/build/release/omgdb /usr/local/bin/omgdb
COPY config/omgdb.toml /etc/omgdb/omgdb.toml
# serve may bind the container's own interfaces (publish the port on the host's loopback).
ENV OMGDB_CONTAINER=1 XDG_STATE_HOME=/data/.state
USER omgdb
WORKDIR /data
VOLUME ["/data"]
EXPOSE 41922
ENTRYPOINT ["/usr/local/bin/omgdb"]
CMD ["mcp", "--standalone"]
