/* DaCe AUTO-GENERATED FILE. DO NOT MODIFY */
#include <dace/dace.h>
#include "../../include/hash.h"

struct apply_nabla2_to_w_state_t {

};

inline void reduce_0_0_32(apply_nabla2_to_w_state_t *__state, double* __restrict__ _in, double&  _out) {

    {

        {
            for (auto _o0 = 0; _o0 < 1; _o0 += 1) {
                {
                    double __out;

                    ///////////////////
                    // Tasklet code (reduce_init)
                    __out = 0;
                    ///////////////////

                    _out = __out;
                }
            }
        }

    }
    {

        {
            for (auto _i0 = 0; _i0 < 4; _i0 += 1) {
                {
                    double __inp = _in[_i0];
                    double __out;

                    ///////////////////
                    // Tasklet code (identity)
                    __out = __inp;
                    ///////////////////

                    dace::wcr_fixed<dace::ReductionType::Sum, double>::reduce(&_out, __out);
                }
            }
        }

    }
}

void __program_apply_nabla2_to_w_internal(apply_nabla2_to_w_state_t*__state, double * __restrict__ area, double * __restrict__ geofac_n2s, double * __restrict__ gt_compute_time, int * __restrict__ gt_conn_C2E2CO, double * __restrict__ w, double * __restrict__ z_nabla2_c, int __area_Cell_range_0, int __geofac_n2s_C2E2CO_stride, int __geofac_n2s_Cell_range_0, int __gt_conn_C2E2CO_neighbor_stride, int __w_Cell_range_0, int __w_K_range_0, int __w_K_stride, int __z_nabla2_c_Cell_range_0, int __z_nabla2_c_K_range_0, int __z_nabla2_c_K_stride, double diff_multfac_w, int gt_metrics_level, int horizontal_end, int horizontal_start, int vertical_end, int vertical_start)
{
    int64_t gt_start_time;

    if ((gt_metrics_level >= 10)) {
        {

            {
                int64_t time;

                ///////////////////
                /* The SDFG execution should already be synchronized */
                auto now = std::chrono::high_resolution_clock::now();
                time = std::chrono::duration_cast<std::chrono::nanoseconds>(
                now.time_since_epoch()
                ).count();

                ///////////////////

                gt_start_time = time;
            }

        }
    }
    {
        double *gtir_tmp_3;
        gtir_tmp_3 = new (std::align_val_t(64)) double [Max(0, (horizontal_end - horizontal_start))];

        {
            #pragma omp parallel for
            for (auto i_Cell_gtx_horizontal = horizontal_start; i_Cell_gtx_horizontal < horizontal_end; i_Cell_gtx_horizontal += 1) {
                double __map_fusion_gtir_tmp_1;
                double __diff_multfac_w_0;
                {
                    double __tlet_out;

                    ///////////////////
                    // Tasklet code (tlet_0_get_value__clone_0)
                    __tlet_out = diff_multfac_w;
                    ///////////////////

                    __diff_multfac_w_0 = __tlet_out;
                }
                {
                    double __tlet_arg0 = area[((- __area_Cell_range_0) + i_Cell_gtx_horizontal)];
                    double __tlet_arg1 = area[((- __area_Cell_range_0) + i_Cell_gtx_horizontal)];
                    double __tlet_result;

                    ///////////////////
                    // Tasklet code (tlet_1_multiplies)
                    __tlet_result = (__tlet_arg0 * __tlet_arg1);
                    ///////////////////

                    __map_fusion_gtir_tmp_1 = __tlet_result;
                }
                {
                    double __tlet_arg0 = __diff_multfac_w_0;
                    double __tlet_arg1 = __map_fusion_gtir_tmp_1;
                    double __tlet_result;

                    ///////////////////
                    // Tasklet code (tlet_2_multiplies)
                    __tlet_result = (__tlet_arg0 * __tlet_arg1);
                    ///////////////////

                    gtir_tmp_3[((- horizontal_start) + i_Cell_gtx_horizontal)] = __tlet_result;
                }
            }
        }
        {
            #pragma omp parallel for
            for (auto i_K_gtx_vertical = vertical_start; i_K_gtx_vertical < vertical_end; i_K_gtx_vertical += 1) {
                for (auto i_Cell_gtx_horizontal = horizontal_start; i_Cell_gtx_horizontal < horizontal_end; i_Cell_gtx_horizontal += 1) {
                    double gtir_tmp_8;
                    double __map_fusion_gtir_tmp_5[4]  DACE_ALIGN(64);
                    double __map_fusion_gtir_tmp_7[4]  DACE_ALIGN(64);
                    double __map_fusion_gtir_tmp_11;
                    double __gtx_double_write_remover_inner_inner_distribution_node_1;
                    double __inner_double_buffer_for_w;
                    {
                        for (auto i_C2E2CO_gtx_localdim = 0; i_C2E2CO_gtx_localdim < 4; i_C2E2CO_gtx_localdim += 1) {
                            double __gtx_double_write_remover_inner_inner_distribution_node;
                            {
                                int __tlet_index = gt_conn_C2E2CO[((__gt_conn_C2E2CO_neighbor_stride * i_C2E2CO_gtx_localdim) + i_Cell_gtx_horizontal)];
                                double* __tlet_field = &z_nabla2_c[(__z_nabla2_c_K_stride * ((- __z_nabla2_c_K_range_0) + i_K_gtx_vertical))];
                                double __tlet_val;

                                ///////////////////
                                // Tasklet code (tlet_3_C2E2CO_neighbors)
                                __tlet_val = __tlet_field[(__tlet_index - __z_nabla2_c_Cell_range_0)];
                                ///////////////////

                                __gtx_double_write_remover_inner_inner_distribution_node = __tlet_val;
                            }

                            dace::CopyND<double, 1, false, 1>::template ConstDst<1>::Copy(
                            &__gtx_double_write_remover_inner_inner_distribution_node, __map_fusion_gtir_tmp_5 + i_C2E2CO_gtx_localdim, 1);
                        }
                    }
                    {
                        for (auto i_C2E2CO_gtx_localdim = 0; i_C2E2CO_gtx_localdim < 4; i_C2E2CO_gtx_localdim += 1) {
                            double __gtx_double_write_remover_inner_inner_distribution_node_0;
                            {
                                double __tlet_arg1 = geofac_n2s[(((__geofac_n2s_C2E2CO_stride * i_C2E2CO_gtx_localdim) - __geofac_n2s_Cell_range_0) + i_Cell_gtx_horizontal)];
                                double __tlet_arg0 = __map_fusion_gtir_tmp_5[i_C2E2CO_gtx_localdim];
                                double __tlet_out;

                                ///////////////////
                                // Tasklet code (tlet_4_map)
                                __tlet_out = (__tlet_arg0 * __tlet_arg1);
                                ///////////////////

                                __gtx_double_write_remover_inner_inner_distribution_node_0 = __tlet_out;
                            }

                            dace::CopyND<double, 1, false, 1>::template ConstDst<1>::Copy(
                            &__gtx_double_write_remover_inner_inner_distribution_node_0, __map_fusion_gtir_tmp_7 + i_C2E2CO_gtx_localdim, 1);
                        }
                    }
                    reduce_0_0_32(__state, &__map_fusion_gtir_tmp_7[0], gtir_tmp_8);
                    {
                        double __tlet_arg1 = gtir_tmp_8;
                        double __tlet_arg0 = gtir_tmp_3[((- horizontal_start) + i_Cell_gtx_horizontal)];
                        double __tlet_result;

                        ///////////////////
                        // Tasklet code (tlet_5_multiplies)
                        __tlet_result = (__tlet_arg0 * __tlet_arg1);
                        ///////////////////

                        __map_fusion_gtir_tmp_11 = __tlet_result;
                    }

                    dace::CopyND<double, 1, false, 1>::template ConstDst<1>::Copy(
                    w + (((- __w_Cell_range_0) + (__w_K_stride * ((- __w_K_range_0) + i_K_gtx_vertical))) + i_Cell_gtx_horizontal), &__inner_double_buffer_for_w, 1);
                    {
                        double __tlet_arg0 = __inner_double_buffer_for_w;
                        double __tlet_arg1 = __map_fusion_gtir_tmp_11;
                        double __tlet_result;

                        ///////////////////
                        // Tasklet code (tlet_6_minus)
                        __tlet_result = (__tlet_arg0 - __tlet_arg1);
                        ///////////////////

                        __gtx_double_write_remover_inner_inner_distribution_node_1 = __tlet_result;
                    }

                    dace::CopyND<double, 1, false, 1>::template ConstDst<1>::Copy(
                    &__gtx_double_write_remover_inner_inner_distribution_node_1, w + (((- __w_Cell_range_0) + (__w_K_stride * ((- __w_K_range_0) + i_K_gtx_vertical))) + i_Cell_gtx_horizontal), 1);
                }
            }
        }
        static_assert(std::is_trivially_destructible<double>::value, "aligned heap deallocation skips destructors");
        ::operator delete[](gtir_tmp_3, std::align_val_t(64));

    }
    if ((gt_metrics_level >= 10)) {
        {

            {
                int64_t run_cpp_start_time = gt_start_time;
                double duration;

                ///////////////////
                /* The SDFG execution should already be synchronized */
                auto now = std::chrono::high_resolution_clock::now();
                auto run_cpp_end_time = std::chrono::duration_cast<std::chrono::nanoseconds>(
                now.time_since_epoch()
                ).count();
                duration = static_cast<double>(run_cpp_end_time - run_cpp_start_time) * 1.e-9;

                ///////////////////

                gt_compute_time[0] = duration;
            }

        }
    }
}

DACE_EXPORTED void __program_apply_nabla2_to_w(apply_nabla2_to_w_state_t *__state, double * __restrict__ area, double * __restrict__ geofac_n2s, double * __restrict__ gt_compute_time, int * __restrict__ gt_conn_C2E2CO, double * __restrict__ w, double * __restrict__ z_nabla2_c, int __area_Cell_range_0, int __geofac_n2s_C2E2CO_stride, int __geofac_n2s_Cell_range_0, int __gt_conn_C2E2CO_neighbor_stride, int __w_Cell_range_0, int __w_K_range_0, int __w_K_stride, int __z_nabla2_c_Cell_range_0, int __z_nabla2_c_K_range_0, int __z_nabla2_c_K_stride, double diff_multfac_w, int gt_metrics_level, int horizontal_end, int horizontal_start, int vertical_end, int vertical_start)
{
    __program_apply_nabla2_to_w_internal(__state, area, geofac_n2s, gt_compute_time, gt_conn_C2E2CO, w, z_nabla2_c, __area_Cell_range_0, __geofac_n2s_C2E2CO_stride, __geofac_n2s_Cell_range_0, __gt_conn_C2E2CO_neighbor_stride, __w_Cell_range_0, __w_K_range_0, __w_K_stride, __z_nabla2_c_Cell_range_0, __z_nabla2_c_K_range_0, __z_nabla2_c_K_stride, diff_multfac_w, gt_metrics_level, horizontal_end, horizontal_start, vertical_end, vertical_start);
}

DACE_EXPORTED apply_nabla2_to_w_state_t *__dace_init_apply_nabla2_to_w(int __area_Cell_range_0, int __geofac_n2s_C2E2CO_stride, int __geofac_n2s_Cell_range_0, int __gt_conn_C2E2CO_neighbor_stride, int __w_Cell_range_0, int __w_K_range_0, int __w_K_stride, int __z_nabla2_c_Cell_range_0, int __z_nabla2_c_K_range_0, int __z_nabla2_c_K_stride, double diff_multfac_w, int gt_metrics_level, int horizontal_end, int horizontal_start, int vertical_end, int vertical_start)
{

    int __result = 0;
    apply_nabla2_to_w_state_t *__state = new apply_nabla2_to_w_state_t();

    if (__result) {
        delete __state;
        return nullptr;
    }

    return __state;
}

DACE_EXPORTED int __dace_exit_apply_nabla2_to_w(apply_nabla2_to_w_state_t *__state)
{

    int __err = 0;
    delete __state;
    return __err;
}
