"""The known differences between our output and Pi 1.4.0's, per scenario. Generated and kept up
to date by ``python tests/conformance/_known.py --update`` (see README.md); review it like code.

Each entry is a difference line of the comparator (``_compare.py``) with its reason code; the code's
one-line reason and the issue point it belongs to are in ``_reasons.REASONS``. The tests require
the differences to be exactly these: a fix makes an entry go away (remove it), a regression adds one.
"""

KNOWN: dict[str, dict[str, str]] = {
    "json_plain_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_plain_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_plain_or": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_plain_gg": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_read_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_read_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_read_or": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_read_gg": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_parallel_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_parallel_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_failing_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_failing_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_bash_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_truncated_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tool_write_edit_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_thinking_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_thinking_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_thinking_or": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_thinking_gg": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_retry_5xx_oc": {
        "run 1 all events but ['agent_settled', 'auto_retry_end', 'auto_retry_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_retry_5xx_am": {
        "run 1 all events but ['agent_settled', 'auto_retry_end', 'auto_retry_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_overloaded_stream_error_am": {
        "run 1 all events but ['agent_settled', 'auto_retry_end', 'auto_retry_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_rate_limit_429_am": {
        "run 1 all events but ['agent_settled', 'auto_retry_end', 'auto_retry_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_quota_429_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_http_400_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_http_400_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_length_stop_oc": {
        "run 1 all events but ['agent_settled', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_length_stop_am": {
        "run 1 all events but ['agent_settled', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_overflow_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_length_stop_tool_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_overflow_first_oc": {
        "run 1 all events but ['agent_settled', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_or": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_gg": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session']: extra runId: str": "run-id",
    },
    "json_length_stop_continue_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_fail_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session']: extra runId: str": "run-id",
    },
    "json_threshold_retry_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'session', 'summarization_retry_attempt_start', 'summarization_retry_finished', 'summarization_retry_scheduled']: extra runId: str": "run-id",
    },
    "json_overflow_fail_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'compaction_end', 'compaction_start', 'entry_appended', 'session']: extra runId: str": "run-id",
    },
    "print_plain_oc": {},
    "print_tool_am": {},
    "print_error_exit_oc": {},
    "print_quota_exit_am": {},
    "json_continue_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "print_session_path_am": {},
    "json_context_files_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_context_files_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_system_md_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "rpc_skills_templates_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "json_tools_subset_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_tools_subset_am": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_resume_tools_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 3 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_resume_no_tools_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
        "run 2 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "json_no_tools_oc": {
        "run 1 all events but ['agent_settled', 'session']: extra runId: str": "run-id",
    },
    "rpc_inspect_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_inspect_am": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_settings_commands_oc": {
        "run 1 all events but ['agent_settled', 'session_info_changed', 'thinking_level_changed']: extra runId: str": "run-id",
        'run 1 response noprompt(prompt): error: Pi "Cannot read properties of undefined (reading \'startsWith\')", ours "\\"message\\" must be a string"': "rpc-validation-text",
    },
    "rpc_bash_oc": {
        "run 1 all events but ['agent_settled', 'bash_execution_update']: extra runId: str": "run-id",
    },
    "rpc_compact_oc": {
        "run 1 all events but ['agent_settled', 'compaction_end', 'compaction_start']: extra runId: str": "run-id",
    },
    "rpc_compact_am": {
        "run 1 all events but ['agent_settled', 'compaction_end', 'compaction_start']: extra runId: str": "run-id",
    },
    "rpc_compact_fail_oc": {
        "run 1 all events but ['agent_settled', 'compaction_end', 'compaction_start']: extra runId: str": "run-id",
    },
    "rpc_abort_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_abort_am": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_abort_waiting_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_abort_toolcall_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_abort_thinking_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_steer_oc": {
        "run 1 all events but ['agent_settled', 'queue_update']: extra runId: str": "run-id",
    },
    "rpc_steer_am": {
        "run 1 all events but ['agent_settled', 'queue_update']: extra runId: str": "run-id",
    },
    "rpc_follow_up_oc": {
        "run 1 all events but ['agent_settled', 'queue_update']: extra runId: str": "run-id",
    },
    "rpc_clear_queue_oc": {
        "run 1 all events but ['agent_settled', 'queue_update']: extra runId: str": "run-id",
    },
    "rpc_prompt_while_busy_oc": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_fork_oc": {
        "run 1 all events but ['agent_settled', 'tree node']: extra runId: str": "run-id",
    },
    "rpc_clone_new_switch_am": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_clone_cli_thinking_oc": {
        "run 1 all events but ['agent_settled', 'thinking_level_changed']: extra runId: str": "run-id",
    },
    "rpc_entries_cursor_oc": {
        "run 1 all events but ['agent_settled', 'tree node']: extra runId: str": "run-id",
    },
    "rpc_tool_named_am": {
        "run 1 all events but ['agent_settled']: extra runId: str": "run-id",
    },
    "rpc_client": {},
}
