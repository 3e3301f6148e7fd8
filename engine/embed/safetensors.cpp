// omgdb embeddings — safetensors: an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?: {…}}, then the raw
// little-endian tensor bytes. Only the one embedding matrix is read.
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include <boost/json.hpp>

#include "common/json.hpp"
#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace bj = boost::json;

namespace {

constexpr std::uint64_t k_max_header_bytes = 100 << 20;  // the format's own limit

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
}

}  // namespace

result<tensor_rows> parse_safetensors(std::string_view bytes, std::string_view name) {
  const std::string what = "safetensors file " + std::string(name);
  auto bad = [&](const std::string& why) { return make_error(what + " is not usable: " + why, failure_kind::corrupt); };
  if (bytes.size() < 8) return bad("shorter than its 8-byte header length");
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (header_len > k_max_header_bytes || header_len > bytes.size() - 8) return bad("its header length runs past the file");
  auto header = json::parse_strict(bytes.substr(8, header_len));
  if (!header || !header->is_object()) return bad("its header is not a JSON object");
  const std::string_view data = bytes.substr(8 + header_len);
  const bj::object* chosen = nullptr;
  std::size_t matrices = 0;
  for (const auto& kv : header->as_object()) {
    if (kv.key() == "__metadata__" || !kv.value().is_object()) continue;
    const auto* shape = kv.value().as_object().if_contains("shape");
    if (shape == nullptr || !shape->is_array() || shape->as_array().size() != 2) continue;
    ++matrices;
    if (kv.key() == "embeddings" || chosen == nullptr) chosen = &kv.value().as_object();
    if (kv.key() == "embeddings") break;
  }
  if (chosen == nullptr) return bad("it holds no 2-D tensor");
  if (matrices > 1 && !header->as_object().contains("embeddings")) return bad("it holds several matrices and none is named `embeddings`");
  tensor_rows out;
  std::string dtype;
  std::uint64_t begin = 0, end = 0;
  try {
    dtype = std::string(chosen->at("dtype").as_string());
    const auto& shape = chosen->at("shape").as_array();
    out.rows = shape.at(0).to_number<std::uint64_t>();
    const auto dim = shape.at(1).to_number<std::uint64_t>();
    if (dim == 0 || dim > k_max_dim) return bad("dimension " + std::to_string(dim) + " is outside 1 to 4096");
    out.dim = static_cast<std::uint32_t>(dim);
    const auto& offsets = chosen->at("data_offsets").as_array();
    begin = offsets.at(0).to_number<std::uint64_t>();
    end = offsets.at(1).to_number<std::uint64_t>();
  } catch (const std::exception&) {
    return bad("its tensor entry lacks dtype, shape or data_offsets");
  }
  if (out.rows == 0 || out.rows > k_max_rows) return bad("it has " + std::to_string(out.rows) + " rows (1 to 10,000,000)");
  const std::size_t width = dtype == "F32" ? 4 : (dtype == "F16" || dtype == "BF16") ? 2 : 0;
  if (width == 0) return bad("dtype `" + dtype + "` (F32, F16 and BF16 are read)");
  const std::uint64_t count = out.rows * out.dim;
  if (begin > end || end > data.size() || end - begin != count * width) {
    return bad("its data offsets do not hold " + std::to_string(out.rows) + " × " + std::to_string(out.dim) + " " + dtype + " values");
  }
  out.data.resize(count);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data() + begin);
  for (std::uint64_t i = 0; i < count; ++i) {
    float v;
    if (width == 4) {
      v = std::bit_cast<float>(le32(p + i * 4));
    } else {
      const std::uint16_t h = static_cast<std::uint16_t>(p[i * 2] | (p[i * 2 + 1] << 8));
      v = dtype == "F16" ? half_to_float(h) : std::bit_cast<float>(std::uint32_t{h} << 16);
    }
    if (!std::isfinite(v)) return bad("row " + std::to_string(i / out.dim) + " holds a value that is not finite");
    out.data[i] = v;
  }
  return out;
}

result<tensor_rows> read_safetensors(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return make_error("cannot read " + file.string(), failure_kind::io);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (size > (std::uint64_t{4} << 30)) return make_error(file.string() + " is larger than 4 GiB", failure_kind::limit_exceeded);
  std::string bytes(size, '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return make_error("cannot read " + file.string(), failure_kind::io);
  return parse_safetensors(bytes, file.string());
}

}  // namespace omgdb::engine::embed
