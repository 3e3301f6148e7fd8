# omgdb container image: a Debian 12 build stage with the packages that compile the daemon,
# and a slim runtime stage running as a non-root user with a volume for stores.
#   docker build -t omgdb .          (or podman build; `make image-test` builds both bases
#                                     from Debian's packages and passes them as BASE /
#                                     RUNTIME_BASE, for machines that cannot pull an image)
#   docker run -i --rm omgdb                                   # standalone: tools/list only
#   docker run -i --rm -v omgdb-data:/data omgdb mcp           # stores at /data/NAME.omgdb
#   docker run --rm -p 127.0.0.1:41922:41922 -v omgdb-data:/data -e OMGDB_HTTP_TOKEN \
#     omgdb serve --listen 0.0.0.0:41922 --store-root /data
#   docker run --rm -v omgdb-data:/data omgdb create /data/app.omgdb
# docs/service.md ("Container") explains the choices.
ARG BASE=debian:bookworm
ARG RUNTIME_BASE=debian:bookworm-slim

FROM ${BASE} AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
# Installs only what is missing: nothing on a base that already has the build packages.
RUN OMGDB_DEPS_BUILD_ONLY=1 bash scripts/deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
# A compiler cache a builder may lend (`podman build -v DIR:/ccache --build-arg CCACHE_DIR=/ccache`,
# as `make image-test` does). ccache knows the compiler by its mtime and size, which dpkg keeps
# from the package: the same Debian gcc here and on a bookworm host hit the same entries.
ARG CCACHE_DIR=/root/.cache/ccache
RUN rm -rf build && cmake --preset release -DBUILD_TESTING=OFF >/dev/null \
    && cmake --build --preset release -j"$(nproc)" --target omgdb \
    && strip build/release/omgdb

FROM ${RUNTIME_BASE}
# The shared libraries the binary links (objdump -p build/release/omgdb | grep NEEDED);
# installed only when the base lacks them.
ARG RUNTIME_PACKAGES="libbson-1.0-0 libpcre2-8-0 libboost-json1.81.0 libboost-url1.81.0 libssl3 \
      libtomlplusplus3 libsnappy1v5 liblz4-1 libzstd1 libbz2-1.0 zlib1g libsystemd0 libpq5 libmariadb3 \
      libsqlite3-0 libstemmer0d libcmark-gfm0.29.0.gfm.6 libcmark-gfm-extensions0.29.0.gfm.6 libyaml-cpp0.7 \
      ca-certificates"
RUN if ! dpkg-query -W $RUNTIME_PACKAGES >/dev/null 2>&1; then \
      apt-get update && apt-get install -y --no-install-recommends $RUNTIME_PACKAGES \
      && rm -rf /var/lib/apt/lists/*; fi \
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
