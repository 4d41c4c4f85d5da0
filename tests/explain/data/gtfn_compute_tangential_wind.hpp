#include <gridtools/fn/backend/naive.hpp>
                    #include <gridtools/sid/dimension_to_tuple_like.hpp>
                    
    #include <cmath>
    #include <cstdint>
    #include <functional>
    #include <gridtools/fn/unstructured.hpp>
    #include <gridtools/fn/sid_neighbor_table.hpp>
    #include <gridtools/stencil/global_parameter.hpp>
    
    // TODO(tehrengruber): This should disappear as soon as we introduce a proper builtin.
    namespace gridtools::fn {
        
        template <class S, class D>
        GT_FUNCTION gridtools::tuple<int, int> get_domain_range(S &&sid, D) {
            return {gridtools::host_device::at_key<D>(gridtools::sid::get_lower_bounds(sid)),
                gridtools::host_device::at_key<D>(gridtools::sid::get_upper_bounds(sid))};
        }
    }
    
    namespace generated{

    namespace gtfn = ::gridtools::fn;

    namespace{
    using namespace ::gridtools::literals;

    
                using Edge_t = gtfn::unstructured::dim::horizontal;
        constexpr inline Edge_t Edge{};
        

                using K_t = gtfn::unstructured::dim::vertical;
        constexpr inline K_t K{};
        

            struct C2V_t{};
        constexpr inline C2V_t C2V{};
        

                using Cell_t = gtfn::unstructured::dim::horizontal;
        constexpr inline Cell_t Cell{};
        

                using Vertex_t = gtfn::unstructured::dim::horizontal;
        constexpr inline Vertex_t Vertex{};
        

            struct C2E_t{};
        constexpr inline C2E_t C2E{};
        

            struct C2E2C_t{};
        constexpr inline C2E2C_t C2E2C{};
        

            struct E2V_t{};
        constexpr inline E2V_t E2V{};
        

            struct E2C_t{};
        constexpr inline E2C_t E2C{};
        

            struct V2C_t{};
        constexpr inline V2C_t V2C{};
        

            struct V2E_t{};
        constexpr inline V2E_t V2E{};
        

            struct V2E2V_t{};
        constexpr inline V2E2V_t V2E2V{};
        

            struct C2E2CO_t{};
        constexpr inline C2E2CO_t C2E2CO{};
        

            struct C2E2C2E_t{};
        constexpr inline C2E2C2E_t C2E2C2E{};
        

            struct C2E2C2E2C_t{};
        constexpr inline C2E2C2E2C_t C2E2C2E2C{};
        

            struct E2C2V_t{};
        constexpr inline E2C2V_t E2C2V{};
        

            struct E2C2E_t{};
        constexpr inline E2C2E_t E2C2E{};
        

            struct E2C2EO_t{};
        constexpr inline E2C2EO_t E2C2EO{};
        
    
        struct _fun_0 {
            constexpr auto operator()() const {
                return [](auto const& rbf_vec_coeff_e,auto const& vn){
                    return static_cast<double>([=](auto _step_0){return _step_0(_step_0(_step_0(_step_0(0.,0_c),1_c),2_c),3_c);}([=](auto _acc_0,auto _i_0){return (_acc_0 + (gtfn::tuple_get(_i_0,gtfn::deref(rbf_vec_coeff_e)) * gtfn::deref(gtfn::shift(vn,E2C2E,_i_0))));}));
                };
            }
        };
    

    using block_sizes_t = gridtools::meta::list<gridtools::meta::list<gtfn::unstructured::dim::horizontal, gridtools::integral_constant<int, 32>>, gridtools::meta::list<gtfn::unstructured::dim::vertical, gridtools::integral_constant<int, 8>>>;

    inline auto compute_tangential_wind = [](auto... connectivities__){
        return [connectivities__...](auto backend, auto&& vn,auto&& rbf_vec_coeff_e,auto&& vt,auto&& horizontal_start,auto&& horizontal_end,auto&& vertical_start,auto&& vertical_end){
            auto tmp_alloc__ = gtfn::backend::tmp_allocator(backend);
            
            
        make_backend(backend, gtfn::unstructured_domain(::gridtools::tuple((horizontal_end - horizontal_start),(vertical_end - vertical_start)), ::gridtools::tuple(horizontal_start,vertical_start), connectivities__...)).stencil_executor()().arg(vt).arg(rbf_vec_coeff_e).arg(vn).assign(0_c, _fun_0() , 1_c,2_c).execute();
        
        };
    };
    }
    }
    
                    template <class ArgT0, class ArgT1, class ArgT2, class ArgT7, class ArgT8, class ArgT9, class ArgT10, class ArgT11, class ArgT12, class ArgT13, class ArgT14, class ArgT15, class ArgT16, class ArgT17, class ArgT18, class ArgT19, class ArgT20>
        decltype(auto) compute_tangential_wind(ArgT0&& vn, ArgT1&& rbf_vec_coeff_e, ArgT2&& vt, std::int32_t horizontal_start, std::int32_t horizontal_end, std::int32_t vertical_start, std::int32_t vertical_end, ArgT7&& gt_conn_c2v, ArgT8&& gt_conn_c2e, ArgT9&& gt_conn_c2e2c, ArgT10&& gt_conn_e2v, ArgT11&& gt_conn_e2c, ArgT12&& gt_conn_v2c, ArgT13&& gt_conn_v2e, ArgT14&& gt_conn_v2e2v, ArgT15&& gt_conn_c2e2co, ArgT16&& gt_conn_c2e2c2e, ArgT17&& gt_conn_c2e2c2e2c, ArgT18&& gt_conn_e2c2v, ArgT19&& gt_conn_e2c2e, ArgT20&& gt_conn_e2c2eo) {
        return generated::compute_tangential_wind(gridtools::hymap::keys<generated::C2V_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2V_t, 3>(std::forward<decltype(gt_conn_c2v)>(gt_conn_c2v))), gridtools::hymap::keys<generated::C2E_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2E_t, 3>(std::forward<decltype(gt_conn_c2e)>(gt_conn_c2e))), gridtools::hymap::keys<generated::C2E2C_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2E2C_t, 3>(std::forward<decltype(gt_conn_c2e2c)>(gt_conn_c2e2c))), gridtools::hymap::keys<generated::E2V_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Edge_t, generated::E2V_t, 2>(std::forward<decltype(gt_conn_e2v)>(gt_conn_e2v))), gridtools::hymap::keys<generated::E2C_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Edge_t, generated::E2C_t, 2>(std::forward<decltype(gt_conn_e2c)>(gt_conn_e2c))), gridtools::hymap::keys<generated::V2C_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Vertex_t, generated::V2C_t, 6>(std::forward<decltype(gt_conn_v2c)>(gt_conn_v2c))), gridtools::hymap::keys<generated::V2E_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Vertex_t, generated::V2E_t, 6>(std::forward<decltype(gt_conn_v2e)>(gt_conn_v2e))), gridtools::hymap::keys<generated::V2E2V_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Vertex_t, generated::V2E2V_t, 6>(std::forward<decltype(gt_conn_v2e2v)>(gt_conn_v2e2v))), gridtools::hymap::keys<generated::C2E2CO_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2E2CO_t, 4>(std::forward<decltype(gt_conn_c2e2co)>(gt_conn_c2e2co))), gridtools::hymap::keys<generated::C2E2C2E_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2E2C2E_t, 9>(std::forward<decltype(gt_conn_c2e2c2e)>(gt_conn_c2e2c2e))), gridtools::hymap::keys<generated::C2E2C2E2C_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Cell_t, generated::C2E2C2E2C_t, 9>(std::forward<decltype(gt_conn_c2e2c2e2c)>(gt_conn_c2e2c2e2c))), gridtools::hymap::keys<generated::E2C2V_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Edge_t, generated::E2C2V_t, 4>(std::forward<decltype(gt_conn_e2c2v)>(gt_conn_e2c2v))), gridtools::hymap::keys<generated::E2C2E_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Edge_t, generated::E2C2E_t, 4>(std::forward<decltype(gt_conn_e2c2e)>(gt_conn_e2c2e))), gridtools::hymap::keys<generated::E2C2EO_t>::make_values(gridtools::fn::sid_neighbor_table::as_neighbor_table<generated::Edge_t, generated::E2C2EO_t, 5>(std::forward<decltype(gt_conn_e2c2eo)>(gt_conn_e2c2eo))))(gridtools::fn::backend::naive{}, std::forward<decltype(vn)>(vn), gridtools::sid::dimension_to_tuple_like<generated::E2C2E_t, 4>(std::forward<decltype(rbf_vec_coeff_e)>(rbf_vec_coeff_e)), std::forward<decltype(vt)>(vt), std::forward<decltype(horizontal_start)>(horizontal_start), std::forward<decltype(horizontal_end)>(horizontal_end), std::forward<decltype(vertical_start)>(vertical_start), std::forward<decltype(vertical_end)>(vertical_end));
    }