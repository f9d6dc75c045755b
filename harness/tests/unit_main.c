// SPDX-License-Identifier: GPL-2.0
/* The unit tests of the harness, declared as data. usage: unit-tests [DATA_DIR] */
#include "check.h"

#define TESTS(X)							\
	X(test_parse_full_scenario)					\
	X(test_parse_uid_actor_defaults_gid_to_uid)			\
	X(test_parse_several_scenarios_per_file)			\
	X(test_parse_reports_every_error_not_just_the_first)		\
	X(test_parse_crlf_and_tabs)					\
	X(test_parse_unreadable_file)					\
	X(test_parse_policy_mode_and_decisions)				\
	X(test_errno_names_round_trip)					\
	X(test_every_errno_can_be_expected)				\
	X(test_malformed_corpus)					\
	X(test_parse_contexts_modes_and_avc_clauses)			\
	X(test_a_context_alone_requires_selinux)			\
	X(test_avc_records_match_verdict_permissions_and_fields)	\
	X(test_avc_permissions_are_a_set)				\
	X(test_lsm_order)						\
	X(test_qemu_argv_tcg_has_no_nic_no_reboot_and_panics_out)	\
	X(test_qemu_argv_kvm_uses_host_cpu_and_smoke_flag)		\
	X(test_bochs_argv_gives_the_machine_its_files)			\
	X(test_bochs_exit_message_is_its_last_panic)			\
	X(test_vmx_cmdline_scans_for_leaks_in_the_default_setting)	\
	X(test_a_halted_kernel_is_seen_on_the_console)			\
	X(test_accel_without_vmx_svm_is_tcg_without_a_smoke_boot)	\
	X(test_accel_svm_with_working_kvm_is_kvm)			\
	X(test_accel_vmx_with_broken_kvm_falls_back_to_tcg)		\
	X(test_accel_flag_must_be_a_whole_word)				\
	X(test_accel_override)						\
	X(test_console_scan_recorded_reports)				\
	X(test_console_scan_ignores_clean_logs_and_user_space)		\
	X(test_proto_round_trip_escapes_tabs_newlines_backslashes)	\
	X(test_bundle_is_a_cpio_the_system_tool_lists)			\
	X(test_exit_code_contract)					\
	X(test_failed_suite_fails_the_run)				\
	X(test_suites_of_two_lanes_stay_apart_in_every_report)		\
	X(test_qemu_lane_is_its_accelerator_and_the_vendor_l1_saw)	\
	X(test_reports_name_the_failing_step)				\
	X(test_machine_reports_escape_what_they_quote)			\
	X(test_scenario_cost_grows_with_what_its_steps_do)		\
	X(test_shards_deal_whole_groups_the_same_way_every_time)	\
	X(test_shards_balance_cost_not_counts)				\
	X(test_merged_shards_write_the_reports_of_the_unsharded_run)	\
	X(test_merge_names_what_is_missing_or_twice)			\
	X(test_spawn_captures_stdout_stderr_and_status)			\
	X(test_spawn_of_a_missing_program_exits_127_saying_why)		\
	X(test_spawn_stderr_to_a_file_in_a_group_of_its_own)		\
	X(test_lines_are_split_across_reads_without_cr)		\
	X(test_base64_matches_rfc4648_vectors)			\
	X(test_base64_round_trips_every_byte_at_every_length)	\
	X(test_base64_refuses_what_is_not_base64)		\
	X(test_caps_keep_only_what_is_asked)				\
	X(test_ktap_syntax_line_tells_kunit_from_other_kernel_messages) \
	X(test_timed_out_test_leaves_no_process_behind)			\
	X(test_isolated_test_status_is_its_return_value)			\
	X(test_tgmodel_canonical_form_orders_ops_and_fields)		\
	X(test_tgmodel_refuses_with_line_and_reason)			\
	X(test_tgmodel_limits_and_one_past_them)			\
	X(test_tgmodel_first_matching_rule_decides)			\
	X(test_safe_line_escapes_what_is_not_printable_ascii)		\
	X(test_safe_line_cuts_long_words_and_long_lines)		\
	X(test_parser_errors_quote_user_bytes_safely)			\
	X(test_reports_stay_valid_with_bytes_outside_ascii)		\
	X(test_kmemleak_report_counts_leaks_and_names_ours)		\
	X(test_l2path_each_path_holds_on_its_own_counters_only)	\
	X(test_l2path_unready_guest_says_hung_or_lost_ready)		\
	X(test_l2path_idle_vhost_worker_is_a_changed_path)		\
	X(test_l2path_ioeventfd_decides_where_the_kicks_go)		\
	X(test_l2path_thresholds_at_their_edges)			\
	X(test_l2path_missing_counters_or_traffic_never_pass)		\
	X(test_l2path_reads_ping_interrupts_and_status_text)		\
	X(test_gcov_counters_travel_whole_from_l1_to_the_run_folder)	\
	X(test_gcov_missing_counters_fail_the_suite_saying_why)	\
	X(test_gcov_store_keeps_l1_paths_inside_the_run_folder)	\
	X(test_gcov_counters_that_cannot_be_kept_are_the_runs_error)	\
	X(test_interrupted_run_exits_128_plus_its_signal_and_says_so)

#define DECLARE(name) void name(void);
#define ENTRY(name) { #name, name },

TESTS(DECLARE)

static const struct unit_test tests[] = { TESTS(ENTRY) };

int main(int argc, char **argv)
{
	if (argc > 1)
		check_data_dir = argv[1];
	return check_run(tests, (int)(sizeof(tests) / sizeof(tests[0])));
}
