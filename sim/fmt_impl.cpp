// fmt's compiled part, built once here and linked statically (Debian's libfmt-dev ships only a
// shared library, and FMT_HEADER_ONLY would compile this into every translation unit, several
// seconds each). The definitions come from fmt's own format-inl.h; the explicit instantiations
// are those format.h declares `extern template` without FMT_HEADER_ONLY.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

}  // namespace detail
FMT_END_NAMESPACE
