// MJCF height fields: <asset><hfield> (inline elevations, a PNG image or MuJoCo's binary file)
// and the geoms that use them, as MuJoCo 4.0 reads them.
#include "host/mjcf/hfield.hpp"

#include <fmt/format.h>
#include <png.h>

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <utility>

#include "host/mjcf/mesh.hpp"

namespace zwang::mjcf {

namespace {

// images larger than this are refused before their pixels are read
constexpr long long kMaxPixels = 1LL << 24;

void on_png_error(png_structp png, png_const_charp message) {
  char* out = static_cast<char*>(png_get_error_ptr(png));
  std::snprintf(out, 256, "%s", message);
  std::longjmp(png_jmpbuf(png), 1);
}

void on_png_warning(png_structp, png_const_charp) {}

// a PNG reader's file and libpng structures, released however the reading ends
struct PngReader {
  std::FILE* fp = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngReader() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    if (fp != nullptr) std::fclose(fp);
  }
};

// reads a PNG file's grey levels as MuJoCo's image reader does (8 bits per sample: a 16-bit
// sample's high byte, low bit depths scaled to 0..255, palettes expanded, a colour pixel's red
// channel, alpha dropped), rows top to bottom; "" or why it could not.  The reader, the pixels
// and the error text live outside this frame: libpng's errors jump back to setjmp here, which
// leaves this frame's own variables changed after it indeterminate.
std::string read_png(const std::filesystem::path& path, PngReader& reader, std::vector<char>& error,
                     int* width, int* height, std::vector<unsigned char>* grey,
                     std::vector<png_bytep>* rows) {
  reader.fp = std::fopen(path.c_str(), "rb");
  if (reader.fp == nullptr) return "cannot be opened";
  unsigned char signature[8];
  if (std::fread(signature, 1, 8, reader.fp) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
    return "is not a PNG image";
  }
  reader.png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, error.data(), on_png_error, on_png_warning);
  if (reader.png != nullptr) reader.info = png_create_info_struct(reader.png);
  if (reader.info == nullptr) return "cannot be read (out of memory)";
  if (setjmp(png_jmpbuf(reader.png))) {
    return fmt::format("is not a readable PNG image ({})", error.data());
  }
  png_init_io(reader.png, reader.fp);
  png_set_sig_bytes(reader.png, 8);
  png_read_info(reader.png, reader.info);
  const png_uint_32 w = png_get_image_width(reader.png, reader.info);
  const png_uint_32 h = png_get_image_height(reader.png, reader.info);
  const int depth = png_get_bit_depth(reader.png, reader.info);
  const int type = png_get_color_type(reader.png, reader.info);
  if (static_cast<long long>(w) * h > kMaxPixels) {
    return fmt::format("has {} × {} pixels, more than the {} a height field may have", w, h,
                       kMaxPixels);
  }
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(reader.png);
  if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(reader.png);
  if (depth == 16) png_set_strip_16(reader.png);
  if ((type & PNG_COLOR_MASK_ALPHA) != 0) png_set_strip_alpha(reader.png);
  png_set_interlace_handling(reader.png);
  png_read_update_info(reader.png, reader.info);
  const std::size_t stride = png_get_rowbytes(reader.png, reader.info);
  const int channels = png_get_channels(reader.png, reader.info);
  grey->assign(stride * h, 0);
  rows->resize(h);
  for (png_uint_32 r = 0; r < h; ++r) (*rows)[r] = grey->data() + r * stride;
  png_read_image(reader.png, rows->data());
  png_read_end(reader.png, nullptr);
  for (png_uint_32 r = 0; r < h; ++r) {
    for (png_uint_32 c = 0; c < w; ++c) (*grey)[r * w + c] = (*rows)[r][c * channels];
  }
  grey->resize(static_cast<std::size_t>(w) * h);
  *width = static_cast<int>(w);
  *height = static_cast<int>(h);
  return "";
}

// MuJoCo's binary height field: int32 nrow, int32 ncol, then nrow · ncol float32 elevations, row
// 0 first (at −y); "" or why it could not be read
std::string read_binary(const std::filesystem::path& path, HFieldSpec& spec) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return "cannot be opened";
  if (size > 8 + 4 * static_cast<std::uintmax_t>(kMaxPixels)) {
    return fmt::format("has {} bytes, more than a height field of {} elevations", size, kMaxPixels);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be opened";
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
  if (bytes.size() < 8) return "has no header (nrow, ncol)";
  std::int32_t dims[2];
  std::memcpy(dims, bytes.data(), 8);
  if (dims[0] < 1 || dims[1] < 1) {
    return fmt::format("gives {} rows and {} columns, not positive", dims[0], dims[1]);
  }
  const long long n = static_cast<long long>(dims[0]) * dims[1];
  if (static_cast<long long>(bytes.size()) != 8 + 4 * n) {
    return fmt::format("has {} bytes, not the {} of {} rows and {} columns", bytes.size(),
                       8 + 4 * n, dims[0], dims[1]);
  }
  std::vector<float> values(n);
  std::memcpy(values.data(), bytes.data() + 8, 4 * n);
  spec.nrow = dims[0];
  spec.ncol = dims[1];
  spec.elevation.assign(values.begin(), values.end());
  return "";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

HFields::HFields(Context& ctx, std::span<const pugi::xml_node> assets, const Compiler& c)
    : ctx_(ctx) {
  for (const pugi::xml_node asset : assets) {
    for (const pugi::xml_node node : ctx_.children(asset)) {
      if (std::string_view(node.name()) != "hfield") continue;
      Attrs a(ctx_, node);
      Entry e;
      e.node = node;
      HFieldSpec& h = e.spec;
      const std::optional<std::string> file = a.text("file");
      h.name = a.text("name").value_or("");
      if (h.name.empty() && file) h.name = std::filesystem::path(*file).stem().string();
      if (h.name.empty()) a.fail("<hfield> needs a name or a file");
      if (const auto it = index_.find(h.name); it != index_.end()) {
        a.fail(fmt::format("height field name '{}' is already used by the height field at {}",
                           h.name, ctx_.where(fields_[it->second].node)));
      }
      std::array<double, 4> size{};
      if (!a.exact("size", size)) a.fail("<hfield> needs the attribute 'size' (four values)");
      h.size = size;
      const int nrow = a.integer("nrow").value_or(0), ncol = a.integer("ncol").value_or(0);
      const std::vector<float> elevation = attribute_list<float>(a, "elevation");
      const std::string content = a.text("content_type").value_or("");
      a.finish();
      for (int k = 0; k < 4; ++k) {
        if (!(size[k] > 0)) {
          a.fail(fmt::format("<hfield> size[{}] = {} must be positive", k, size[k]));
        }
      }
      if (file) {
        if (nrow != 0 || ncol != 0 || !elevation.empty()) {
          a.fail("<hfield> has a file and also nrow, ncol or elevation");
        }
        const std::filesystem::path path = resolve(ctx_, c, *file);
        std::string type = content;
        if (type.empty()) {
          type =
              lower(path.extension().string()) == ".png" ? "image/png" : "image/vnd.mujoco.hfield";
        }
        std::string error;
        if (type == "image/png") {
          int width = 0, height = 0;
          std::vector<unsigned char> grey;
          std::vector<png_bytep> rows;
          std::vector<char> message(256, '\0');
          PngReader reader;
          error = read_png(path, reader, message, &width, &height, &grey, &rows);
          if (error.empty()) {
            // the image's top row at +y: the last of the grid
            h.nrow = height;
            h.ncol = width;
            h.elevation.resize(grey.size());
            for (int r = 0; r < height; ++r) {
              for (int col = 0; col < width; ++col) {
                h.elevation[r * width + col] = grey[(height - 1 - r) * width + col];
              }
            }
          }
        } else if (type == "image/vnd.mujoco.hfield") {
          error = read_binary(path, h);
        } else {
          a.fail(
              fmt::format("<hfield> content_type '{}' is not image/png or "
                          "image/vnd.mujoco.hfield",
                          type));
        }
        if (!error.empty()) {
          a.fail(fmt::format("height field '{}': file '{}' {}", h.name, path.string(), error));
        }
      } else {
        if (nrow < 1 || ncol < 1) {
          a.fail(fmt::format("<hfield> without a file needs positive nrow and ncol (has {} and {})",
                             nrow, ncol));
        }
        if (static_cast<long long>(nrow) * ncol > kMaxPixels) {
          a.fail(
              fmt::format("<hfield> has {} × {} elevations, more than the {} a height field "
                          "may have",
                          nrow, ncol, kMaxPixels));
        }
        h.nrow = nrow;
        h.ncol = ncol;
        if (elevation.empty()) {
          h.elevation.assign(static_cast<std::size_t>(nrow) * ncol, 0.0);
        } else if (static_cast<long long>(elevation.size()) !=
                   static_cast<long long>(nrow) * ncol) {
          a.fail(fmt::format("<hfield> has {} elevation values for nrow × ncol = {} × {}",
                             elevation.size(), nrow, ncol));
        } else {
          // the attribute's first row is the grid's last (at +y)
          h.elevation.resize(elevation.size());
          for (int r = 0; r < nrow; ++r) {
            for (int col = 0; col < ncol; ++col) {
              h.elevation[r * ncol + col] = elevation[(nrow - 1 - r) * ncol + col];
            }
          }
        }
      }
      if (h.nrow < 2 || h.ncol < 2) {
        a.fail(
            fmt::format("height field '{}' has {} rows and {} columns; its grid needs at least "
                        "2 of each",
                        h.name, h.nrow, h.ncol));
      }
      index_.emplace(h.name, static_cast<int>(fields_.size()));
      fields_.push_back(std::move(e));
    }
  }
}

void HFields::apply(std::vector<Body>& bodies) const {
  for (Body& b : bodies) {
    for (Geom& g : b.geoms) {
      const bool is_field = g.def.type == GeomType::kHfield;
      if (!is_field) {
        if (!g.def.hfield.empty()) {
          ctx_.fail(g.node, fmt::format("a {} geom cannot have a height field ('{}')",
                                        zwang::to_string(g.def.type), g.def.hfield));
        }
        continue;
      }
      if (g.def.hfield.empty())
        ctx_.fail(g.node, "<geom> of type hfield needs the attribute 'hfield'");
      const auto it = index_.find(g.def.hfield);
      if (it == index_.end()) {
        ctx_.fail(g.node, fmt::format("height field '{}' is not defined in <asset>", g.def.hfield));
      }
      const std::array<double, 4>& s = fields_[it->second].spec.size;
      g.def.size = {s[0], s[1], 0.25 * s[2] + 0.5 * s[3]};
    }
  }
}

void HFields::add_to(ModelBuilder& builder) const {
  for (const Entry& e : fields_) {
    try {
      builder.add_hfield(e.spec);
    } catch (const ModelError& err) {
      ctx_.fail(e.node, err.what());
    }
  }
}

}  // namespace zwang::mjcf
