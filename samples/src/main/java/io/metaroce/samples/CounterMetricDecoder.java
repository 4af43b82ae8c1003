/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.samples;

import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import io.metaroce.datapath.counters.DatapathCounters;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import io.prometheus.metrics.model.snapshots.Labels;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.metaroce.samples.MetricFamily.byteCounter;
import static io.metaroce.samples.MetricFamily.byteGauge;
import static io.metaroce.samples.MetricFamily.counter;
import static io.metaroce.samples.MetricFamily.gauge;
import static io.metaroce.samples.MetricFamily.millisTimestampGauge;
import static io.metaroce.samples.MetricFamily.nanosGauge;
import static io.metaroce.samples.MetricFamily.unknown;

/**
 * Decodes one counter of the driver's CnC file, from its type id, key and label, into a metric family and labels:
 * system counters by their key (the {@link SystemCounterDescriptor} id), stream counters by their
 * {@link StreamCounterDescriptor} key and the channel in their label, client heartbeats by their key, and the network
 * transport's counters by the name and the {@code key=value} context of their label (see {@link DatapathCounters}):
 * a connection's and its paths' counters carry {@code connection} and the endpoint labels (a connection carries many
 * streams, so no {@code stream} or {@code session}), a stream's state counter {@code connection}, {@code stream},
 * {@code session} and the endpoint labels.
 * <p>
 * Nothing is dropped: an application counter goes to {@code metaroce_custom_counter}, a driver counter the decoder
 * does not know to {@code metaroce_unmapped_counter}, both with the counter's label; a known counter whose label does
 * not parse keeps its family and carries its whole label in a {@code label} label.
 */
final class CounterMetricDecoder
{
    /**
     * Receives the decoded samples of one scrape.
     */
    interface Sink
    {
        /**
         * One sample.
         *
         * @param family    of the sample.
         * @param labels    of the sample.
         * @param value     in the family's unit.
         * @param counterId of the counter it was read from.
         */
        void sample(MetricFamily family, Labels labels, double value, int counterId);
    }

    static final MetricFamily ERRORS = counter(
        "metaroce_errors", "Errors logged to the driver's distinct error log (./metaroce errors).");
    static final MetricFamily CLIENT_TIMEOUTS = counter(
        "metaroce_client_timeouts", "Clients timed out for not sending keepalives.");
    static final MetricFamily UNBLOCKED_PUBLICATIONS = counter(
        "metaroce_unblocked_publications", "Publications whose uncommitted frame was padded out after the unblock " +
        "timeout.");
    static final MetricFamily UNBLOCKED_COMMANDS = counter(
        "metaroce_unblocked_commands", "Half-written to-driver ring records of dead clients skipped.");
    static final MetricFamily MALFORMED_COMMANDS = counter(
        "metaroce_malformed_commands", "Commands that failed validation, all reasons together.");
    static final MetricFamily IMAGE_LOGS_REFUSED = counter(
        "metaroce_image_logs_refused", "Image logs the driver refused to create, by reason (from the first " +
        "occurrence of a reason on).");
    static final MetricFamily MALFORMED_COMMANDS_BY_REASON = counter(
        "metaroce_malformed_commands_by_reason", "Commands that failed validation, by reject reason (from the " +
        "first occurrence of a reason on).");
    static final MetricFamily UNKNOWN_COMMANDS = counter(
        "metaroce_unknown_commands", "Commands with a template id of no control message.");
    static final MetricFamily ERROR_RESPONSES = counter(
        "metaroce_error_responses", "Commands answered with an error.");
    static final MetricFamily MAPPED_BYTES = byteGauge(
        "metaroce_mapped_bytes", "Bytes of log buffers the driver has mapped.");
    static final MetricFamily ACTIVE_CLIENTS = gauge(
        "metaroce_active_clients", "Clients the driver tracks.");
    static final MetricFamily MAX_CYCLE_TIME = nanosGauge(
        "metaroce_agent_max_cycle_time_seconds", "Longest duty cycle of a driver agent since the driver started.");
    static final MetricFamily CYCLE_TIME_THRESHOLD_EXCEEDED = counter(
        "metaroce_agent_cycle_time_threshold_exceeded", "Duty cycles of a driver agent longer than " +
        "metaroce.cycle.threshold.");
    static final MetricFamily ENDPOINTS_OPEN = gauge(
        "metaroce_endpoints_open", "Network send and receive endpoints open.");
    static final MetricFamily PUBLICATION_TAILS_LOST = counter(
        "metaroce_publication_tails_lost", "Released publications whose drain ended with messages unacknowledged.");
    static final MetricFamily PUBLICATION_TAIL_LOST_BYTES = byteCounter(
        "metaroce_publication_tail_lost_bytes", "Bytes of messages of released publications never acknowledged.");
    static final MetricFamily SPY_IMAGES_LAPPED = counter(
        "metaroce_spy_images_lapped", "Spy images that fell a term behind their publication and were closed.");
    static final MetricFamily DESTINATIONS_DROPPED = counter(
        "metaroce_destinations_dropped", "Destinations of multi-destination publications dropped by flow control.");

    static final MetricFamily PUBLISHER_LIMIT = byteGauge(
        "metaroce_publisher_limit_bytes", "Position a publication's publishers may not pass.");
    static final MetricFamily PUBLISHER_POSITION = byteGauge(
        "metaroce_publisher_position_bytes", "Position of a publication's publishers, sampled by the driver.");
    static final MetricFamily SENDER_ACKNOWLEDGED_POSITION = byteGauge(
        "metaroce_sender_acknowledged_position_bytes", "Position of a network publication its receiver acknowledged.");
    static final MetricFamily RECEIVER_HIGH_WATER_MARK = byteGauge(
        "metaroce_receiver_high_water_mark_bytes", "Highest position a network image has received data up to.");
    static final MetricFamily SUBSCRIBER_POSITION = byteGauge(
        "metaroce_subscriber_position_bytes", "Position of a subscription in an image.");
    static final MetricFamily CLIENT_HEARTBEAT = millisTimestampGauge(
        "metaroce_client_heartbeat_timestamp_seconds", "Time of a client's last keepalive.");
    static final MetricFamily ENDPOINT_LOCAL_ADDRESSES = gauge(
        "metaroce_endpoint_local_addresses", "A network endpoint open on local addresses (1), by the addresses.");

    static final MetricFamily ENGINE_RECEIVED_DATAGRAMS = counter(
        "metaroce_engine_received_datagrams", "Datagrams a transport engine received.");
    static final MetricFamily ENGINE_RECEIVED_BYTES = byteCounter(
        "metaroce_engine_received_bytes", "Bytes of the datagrams a transport engine received.");
    static final MetricFamily ENGINE_SENT_DATAGRAMS = counter(
        "metaroce_engine_sent_datagrams", "Datagrams a transport engine sent.");
    static final MetricFamily ENGINE_SEND_BACK_PRESSURED = counter(
        "metaroce_engine_send_back_pressured", "Sends refused by a full socket buffer (not an error).");
    static final MetricFamily ENGINE_SEND_ERRORS = counter(
        "metaroce_engine_send_errors", "Sends the socket refused with an error, each dropped like a loss.");
    static final MetricFamily ENGINE_SEND_NO_ROUTE = counter(
        "metaroce_engine_send_no_route", "Sends for which the engine had no socket to the destination.");
    static final MetricFamily ENGINE_REJECT_REPLIES_LIMITED = counter(
        "metaroce_engine_reject_replies_limited", "Answers to unknown or refused packets the rate limit held back.");
    static final MetricFamily ENGINE_UNPROVED_EVICTED = counter(
        "metaroce_engine_unproved_evicted", "Receiver connections of senders that never proved their address, " +
        "evicted to make room for new ones.");
    static final MetricFamily ENGINE_AUTH_REVOKED = counter(
        "metaroce_engine_auth_revoked", "Authenticated connections closed because their peer's key left the " +
        "allow-list.");
    static final MetricFamily ENGINE_LATENCY_ROUTE_FAILURES = counter(
        "metaroce_engine_latency_route_failures", "Latency-class connections that could not open their route to " +
        "the receiver's latency queue and go on through its receive port.");
    static final MetricFamily ENGINE_AMPLIFICATION_LIMITED = counter(
        "metaroce_engine_amplification_limited",
        "Messages to senders not yet proved to receive at their address, held back by the amplification limit.");
    static final MetricFamily ENGINE_DROPPED_DATAGRAMS = counter(
        "metaroce_engine_dropped_datagrams", "Received datagrams rejected by the wire reader or the engine, by " +
        "reason.");

    static final MetricFamily SENDER_AUTH_STATE = gauge(
        "metaroce_sender_auth_state", "Authentication of an authenticated sender connection: 1 handshake, " +
        "2 integrity only, 3 encrypted.");
    static final MetricFamily SENDER_AUTH_KEY_EPOCH = gauge(
        "metaroce_sender_auth_key_epoch", "Epoch of the keys an authenticated sender connection seals under: " +
        "how often they changed.");
    static final MetricFamily RECEIVER_AUTH_STATE = gauge(
        "metaroce_receiver_auth_state", "Authentication of an authenticated receiver connection: 1 handshake, " +
        "2 integrity only, 3 encrypted.");
    static final MetricFamily RECEIVER_AUTH_KEY_EPOCH = gauge(
        "metaroce_receiver_auth_key_epoch", "Epoch of the keys an authenticated receiver connection seals under: " +
        "how often they changed.");
    static final MetricFamily SENDER_STATE = gauge(
        "metaroce_sender_state", "State of a sender connection: 1 SETUP, 2 ESTABLISHED, 3 CLOSING, 4 CLOSED, " +
        "5 FAILED.");
    static final MetricFamily SENDER_CONNECT = nanosGauge(
        "metaroce_sender_connect_seconds", "Time a sender connection took from its first SETUP to established, " +
        "the key exchange of an authenticated one included; 0 until established.");
    static final MetricFamily SENDER_DATA_PACKETS = counter(
        "metaroce_sender_data_packets", "DATA packets a sender connection sent, retransmissions included.");
    static final MetricFamily SENDER_DATA_BYTES = byteCounter(
        "metaroce_sender_data_bytes", "Payload bytes of the DATA packets a sender connection sent.");
    static final MetricFamily SENDER_RETRANSMITS = counter(
        "metaroce_sender_retransmits", "DATA packets a sender connection retransmitted.");
    static final MetricFamily SENDER_RETRANSMITS_BY_REASON = counter(
        "metaroce_sender_retransmits_by_reason", "DATA packets a sender connection retransmitted, by the loss " +
        "detection that caused them.");
    static final MetricFamily SENDER_SRTT = nanosGauge(
        "metaroce_sender_srtt_seconds", "Smoothed round-trip time of a sender connection.");
    static final MetricFamily SENDER_CONGESTION_WINDOW = byteGauge(
        "metaroce_sender_congestion_window_bytes", "Congestion window of a sender connection.");
    static final MetricFamily SENDER_INFLIGHT = byteGauge(
        "metaroce_sender_inflight_bytes", "Bytes a sender connection has sent and not yet seen acknowledged.");
    static final MetricFamily SENDER_GRANT_LIMIT = byteGauge(
        "metaroce_sender_grant_limit_bytes", "Credit limit the receiver granted a sender connection, in payload " +
        "bytes of the connection, all its streams together.");
    static final MetricFamily SENDER_PROBES = counter(
        "metaroce_sender_probes", "Probes a sender connection sent.");
    static final MetricFamily SENDER_CREDIT_REQUESTS = counter(
        "metaroce_sender_credit_requests", "Credit requests a sender connection sent.");
    static final MetricFamily SENDER_ACTIVE_PATHS = gauge(
        "metaroce_sender_active_paths", "Paths of a sender connection that carry new data.");
    static final MetricFamily SENDER_PLANES_DOWN = gauge(
        "metaroce_sender_planes_down", "Planes of a sender connection with no active path.");
    static final MetricFamily SENDER_CONGESTION_LOSSES = counter(
        "metaroce_sender_congestion_losses", "Losses a sender connection took as congestion signals.");
    static final MetricFamily SENDER_SPURIOUS_RETRANSMITS = counter(
        "metaroce_sender_spurious_retransmits", "Retransmissions of data the receiver already held.");
    static final MetricFamily SENDER_ACKS_RECEIVED = counter(
        "metaroce_sender_acks_received", "ACKs a sender connection received.");
    static final MetricFamily SENDER_NACKS_RECEIVED = counter(
        "metaroce_sender_nacks_received", "NACKs a sender connection received.");

    static final MetricFamily PATH_PACKETS = counter(
        "metaroce_path_packets", "DATA packets sent on a path of a sender connection.");
    static final MetricFamily PATH_RETRANSMITS = counter(
        "metaroce_path_retransmits", "Retransmitted DATA packets sent on a path.");
    static final MetricFamily PATH_LOSSES_CHARGED = counter(
        "metaroce_path_losses_charged", "Losses charged to a path by its health tracking.");
    static final MetricFamily PATH_LOSSES_SHARED = counter(
        "metaroce_path_losses_shared", "Losses on a path that every path shared (host or receiver late), charged to " +
        "no path.");
    static final MetricFamily PATH_SRTT = nanosGauge(
        "metaroce_path_srtt_seconds", "Smoothed round-trip time of a path.");
    static final MetricFamily PATH_STATE = gauge(
        "metaroce_path_state", "State of a path: 1 ACTIVE, 2 SUSPECT, 3 EVICTED.");
    static final MetricFamily PATH_STATE_CHANGES = counter(
        "metaroce_path_state_changes", "State changes of a path.");
    static final MetricFamily PATH_PROBES = counter(
        "metaroce_path_probes", "Probes sent on a path.");

    static final MetricFamily PLANE_PACKETS = counter(
        "metaroce_plane_packets", "DATA packets a send endpoint sent on a plane, over all its connections.");
    static final MetricFamily PLANE_PACKETS_RECEIVED = counter(
        "metaroce_plane_packets_received", "DATA packets a receive endpoint received on a plane, over all its " +
        "connections, duplicates included.");
    static final MetricFamily PLANE_RETRANSMITS = counter(
        "metaroce_plane_retransmits", "Retransmitted DATA packets a send endpoint sent on a plane.");
    static final MetricFamily PLANE_LOSSES_CHARGED = counter(
        "metaroce_plane_losses_charged", "Losses charged to the paths of a plane by their health tracking.");
    static final MetricFamily PLANE_LOSSES_SHARED = counter(
        "metaroce_plane_losses_shared", "Losses on the paths of a plane that every path shared, charged to no path.");
    static final MetricFamily PLANE_PROBES = counter(
        "metaroce_plane_probes", "Probes a send endpoint sent on a plane.");
    static final MetricFamily PLANE_PATH_STATE_CHANGES = counter(
        "metaroce_plane_path_state_changes", "State changes of the paths of a plane.");

    static final MetricFamily IO_SEND_CALLS = counter(
        "metaroce_io_send_calls", "System calls an endpoint's transport made to send, failed ones included.");
    static final MetricFamily IO_SENT_DATAGRAMS = counter(
        "metaroce_io_sent_datagrams", "Datagrams an endpoint's transport handed to the network.");
    static final MetricFamily IO_SEND_DROPS = counter(
        "metaroce_io_send_drops", "Datagrams a batching transport queued but the network did not take at the flush.");
    static final MetricFamily IO_RECEIVE_CALLS = counter(
        "metaroce_io_receive_calls", "System calls an endpoint's transport made to receive, empty ones included.");
    static final MetricFamily IO_RECEIVED_DATAGRAMS = counter(
        "metaroce_io_received_datagrams", "Datagrams an endpoint's transport read from the network.");
    static final MetricFamily IO_LATENCY_DATAGRAMS = counter(
        "metaroce_io_latency_datagrams", "Datagrams an endpoint's transport read from its latency queue.");

    static final MetricFamily RECEIVER_STATE = gauge(
        "metaroce_receiver_state", "State of a receiver connection: 1 SETUP, 2 ESTABLISHED, 3 CLOSING, 4 CLOSED, " +
        "5 FAILED.");
    static final MetricFamily RECEIVER_DATA_PACKETS = counter(
        "metaroce_receiver_data_packets", "DATA packets a receiver connection received.");
    static final MetricFamily RECEIVER_DATA_BYTES = byteCounter(
        "metaroce_receiver_data_bytes", "Payload bytes of the DATA packets a receiver connection received.");
    static final MetricFamily RECEIVER_DUPLICATES = counter(
        "metaroce_receiver_duplicate_packets", "DATA packets a receiver connection already held.");
    static final MetricFamily RECEIVER_OUT_OF_ORDER = counter(
        "metaroce_receiver_out_of_order_packets", "DATA packets that arrived ahead of a gap.");
    static final MetricFamily RECEIVER_DROPPED = counter(
        "metaroce_receiver_dropped_packets", "DATA packets a receiver connection could not place.");
    static final MetricFamily RECEIVER_ACKS_SENT = counter(
        "metaroce_receiver_acks_sent", "ACKs a receiver connection sent.");
    static final MetricFamily RECEIVER_NACKS_SENT = counter(
        "metaroce_receiver_nacks_sent", "NACKs a receiver connection sent.");
    static final MetricFamily RECEIVER_CREDITS_SENT = counter(
        "metaroce_receiver_credits_sent", "Credit grants a receiver connection sent.");
    static final MetricFamily RECEIVER_GRANT_LIMIT = byteGauge(
        "metaroce_receiver_grant_limit_bytes", "Credit limit a receiver connection granted, in payload bytes of " +
        "the connection, all its streams together.");
    static final MetricFamily RECEIVER_CUMULATIVE_ACK_PSN = gauge(
        "metaroce_receiver_cumulative_ack_psn", "Packet sequence number up to which a receiver connection holds " +
        "every packet (wire value, wraps).");
    static final MetricFamily RECEIVER_MAX_REORDER_DISTANCE = gauge(
        "metaroce_receiver_max_reorder_distance_packets", "Largest reorder distance a receiver connection saw.");
    static final MetricFamily RECEIVER_PROBE_ACKS_SENT = counter(
        "metaroce_receiver_probe_acks_sent", "Answers to probes a receiver connection sent.");
    static final MetricFamily RECEIVER_STREAM_WINDOWS_SENT = counter(
        "metaroce_receiver_stream_windows_sent", "STREAM_WINDOW messages a receiver connection sent to announce its " +
        "streams' window limits.");

    static final MetricFamily SENDER_STREAM_STATE = gauge(
        "metaroce_sender_stream_state", "State of a stream in a sender connection: 1 SETUP (opening), " +
        "2 ESTABLISHED (open), 3 CLOSING, 4 CLOSED, 5 FAILED.");
    static final MetricFamily RECEIVER_STREAM_STATE = gauge(
        "metaroce_receiver_stream_state", "State of a stream in a receiver connection: 1 SETUP (its image is " +
        "being prepared), 2 ESTABLISHED (open), 4 CLOSED.");

    static final MetricFamily CUSTOM = unknown(
        "metaroce_custom_counter", "An application's counter (MetaRoce.addCounter), by type id and label.");
    static final MetricFamily UNMAPPED = unknown(
        "metaroce_unmapped_counter", "A driver counter this exporter does not know, by type id and label.");

    private static final String LABEL = "label";
    private static final String REASON_SUFFIX = " reason";

    private static final Map<Integer, SystemMetric> SYSTEM_METRICS = new HashMap<>();
    private static final Map<String, MetricFamily> DATAPATH_FAMILIES = new HashMap<>();
    private static final Map<String, String> CONTEXT_LABELS = new HashMap<>();
    private static final List<MetricFamily> COUNTER_FAMILIES = new ArrayList<>();

    static
    {
        for (final SystemCounterDescriptor descriptor : SystemCounterDescriptor.values())
        {
            final SystemMetric metric = systemMetric(descriptor);
            if (null != metric)
            {
                SYSTEM_METRICS.put(descriptor.id(), metric);
            }
        }
        addFamily(MALFORMED_COMMANDS_BY_REASON);
        addFamily(IMAGE_LOGS_REFUSED);
        addFamily(PUBLISHER_LIMIT);
        addFamily(PUBLISHER_POSITION);
        addFamily(SENDER_ACKNOWLEDGED_POSITION);
        addFamily(RECEIVER_HIGH_WATER_MARK);
        addFamily(SUBSCRIBER_POSITION);
        addFamily(CLIENT_HEARTBEAT);
        addFamily(ENDPOINT_LOCAL_ADDRESSES);

        datapath(DatapathCounters.ENGINE_TYPE_ID, "rcv-datagrams", ENGINE_RECEIVED_DATAGRAMS);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "rcv-bytes", ENGINE_RECEIVED_BYTES);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-datagrams", ENGINE_SENT_DATAGRAMS);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-back-pressured", ENGINE_SEND_BACK_PRESSURED);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-errors", ENGINE_SEND_ERRORS);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-no-route", ENGINE_SEND_NO_ROUTE);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-reject-replies-limited", ENGINE_REJECT_REPLIES_LIMITED);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-amplification-limited", ENGINE_AMPLIFICATION_LIMITED);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "rcv-unproved-evicted", ENGINE_UNPROVED_EVICTED);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "auth-revoked", ENGINE_AUTH_REVOKED);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "snd-latency-route-failures", ENGINE_LATENCY_ROUTE_FAILURES);
        datapath(DatapathCounters.ENGINE_TYPE_ID, "rcv-drops" + REASON_SUFFIX, ENGINE_DROPPED_DATAGRAMS);

        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-state", SENDER_STATE);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-connect-ns", SENDER_CONNECT);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-auth-state", SENDER_AUTH_STATE);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-auth-key-epoch", SENDER_AUTH_KEY_EPOCH);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-data-packets", SENDER_DATA_PACKETS);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-data-bytes", SENDER_DATA_BYTES);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-retransmits", SENDER_RETRANSMITS);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-retransmits" + REASON_SUFFIX, SENDER_RETRANSMITS_BY_REASON);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-srtt-ns", SENDER_SRTT);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-cwnd", SENDER_CONGESTION_WINDOW);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-inflight-bytes", SENDER_INFLIGHT);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-grant-limit", SENDER_GRANT_LIMIT);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-probes", SENDER_PROBES);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-credit-requests", SENDER_CREDIT_REQUESTS);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-paths-active", SENDER_ACTIVE_PATHS);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-planes-down", SENDER_PLANES_DOWN);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-congestion-losses", SENDER_CONGESTION_LOSSES);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-spurious-retransmits", SENDER_SPURIOUS_RETRANSMITS);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-acks-received", SENDER_ACKS_RECEIVED);
        datapath(DatapathCounters.SENDER_TYPE_ID, "snd-nacks-received", SENDER_NACKS_RECEIVED);

        datapath(DatapathCounters.PATH_TYPE_ID, "path-packets", PATH_PACKETS);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-retransmits", PATH_RETRANSMITS);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-losses-charged", PATH_LOSSES_CHARGED);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-losses-shared", PATH_LOSSES_SHARED);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-srtt-ns", PATH_SRTT);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-state", PATH_STATE);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-state-changes", PATH_STATE_CHANGES);
        datapath(DatapathCounters.PATH_TYPE_ID, "path-probes", PATH_PROBES);

        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-packets", PLANE_PACKETS);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-packets-received", PLANE_PACKETS_RECEIVED);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-retransmits", PLANE_RETRANSMITS);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-losses-charged", PLANE_LOSSES_CHARGED);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-losses-shared", PLANE_LOSSES_SHARED);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-probes", PLANE_PROBES);
        datapath(DatapathCounters.PLANE_TYPE_ID, "plane-path-state-changes", PLANE_PATH_STATE_CHANGES);

        datapath(DatapathCounters.IO_TYPE_ID, "io-send-calls", IO_SEND_CALLS);
        datapath(DatapathCounters.IO_TYPE_ID, "io-sent-datagrams", IO_SENT_DATAGRAMS);
        datapath(DatapathCounters.IO_TYPE_ID, "io-send-drops", IO_SEND_DROPS);
        datapath(DatapathCounters.IO_TYPE_ID, "io-receive-calls", IO_RECEIVE_CALLS);
        datapath(DatapathCounters.IO_TYPE_ID, "io-received-datagrams", IO_RECEIVED_DATAGRAMS);
        datapath(DatapathCounters.IO_TYPE_ID, "io-latency-datagrams", IO_LATENCY_DATAGRAMS);

        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-state", RECEIVER_STATE);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-auth-state", RECEIVER_AUTH_STATE);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-auth-key-epoch", RECEIVER_AUTH_KEY_EPOCH);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-data-packets", RECEIVER_DATA_PACKETS);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-data-bytes", RECEIVER_DATA_BYTES);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-duplicates", RECEIVER_DUPLICATES);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-out-of-order", RECEIVER_OUT_OF_ORDER);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-data-dropped", RECEIVER_DROPPED);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-acks-sent", RECEIVER_ACKS_SENT);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-nacks-sent", RECEIVER_NACKS_SENT);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-credits-sent", RECEIVER_CREDITS_SENT);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-grant-limit", RECEIVER_GRANT_LIMIT);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-cumulative-ack-psn", RECEIVER_CUMULATIVE_ACK_PSN);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-max-reorder-distance", RECEIVER_MAX_REORDER_DISTANCE);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-probe-acks-sent", RECEIVER_PROBE_ACKS_SENT);
        datapath(DatapathCounters.RECEIVER_TYPE_ID, "rcv-stream-windows-sent", RECEIVER_STREAM_WINDOWS_SENT);

        datapath(DatapathCounters.SENDER_STREAM_TYPE_ID, "snd-stream-state", SENDER_STREAM_STATE);
        datapath(DatapathCounters.RECEIVER_STREAM_TYPE_ID, "rcv-stream-state", RECEIVER_STREAM_STATE);

        // The label context's keys (DatapathCounters and the driver's counterLabel values) and their metric labels.
        CONTEXT_LABELS.put("agent", "agent");
        CONTEXT_LABELS.put("conn", "connection");
        CONTEXT_LABELS.put("stream", "stream");
        CONTEXT_LABELS.put("session", "session");
        CONTEXT_LABELS.put("src", "interface");
        CONTEXT_LABELS.put("dst", "endpoint");
        CONTEXT_LABELS.put("rcv", "endpoint");
        CONTEXT_LABELS.put("path", "path");
        CONTEXT_LABELS.put("plane", "plane");
        CONTEXT_LABELS.put("reason", "reason");

        addFamily(CUSTOM);
        addFamily(UNMAPPED);
    }

    private CounterMetricDecoder()
    {
    }

    /**
     * Every family a counter can be decoded into, in a stable order.
     *
     * @return the families.
     */
    static List<MetricFamily> counterFamilies()
    {
        return Collections.unmodifiableList(COUNTER_FAMILIES);
    }

    /**
     * Decode one counter.
     *
     * @param counterId of the counter.
     * @param typeId    of the counter.
     * @param key       buffer over the counter's key.
     * @param label     of the counter.
     * @param value     of the counter.
     * @param sink      to receive the sample.
     */
    static void decode(
        final int counterId,
        final int typeId,
        final DirectBuffer key,
        final String label,
        final long value,
        final Sink sink)
    {
        switch (typeId)
        {
            case CounterTypeId.SYSTEM_COUNTER:
                decodeSystem(counterId, key, label, value, sink);
                break;
            case CounterTypeId.PUBLISHER_LIMIT:
                decodeStream(PUBLISHER_LIMIT, counterId, typeId, key, label, value, sink);
                break;
            case CounterTypeId.PUBLISHER_POSITION:
                decodeStream(PUBLISHER_POSITION, counterId, typeId, key, label, value, sink);
                break;
            case CounterTypeId.SENDER_ACKNOWLEDGED_POSITION:
                decodeStream(SENDER_ACKNOWLEDGED_POSITION, counterId, typeId, key, label, value, sink);
                break;
            case CounterTypeId.RECEIVER_HWM:
                decodeStream(RECEIVER_HIGH_WATER_MARK, counterId, typeId, key, label, value, sink);
                break;
            case CounterTypeId.SUBSCRIBER_POSITION:
                decodeStream(SUBSCRIBER_POSITION, counterId, typeId, key, label, value, sink);
                break;
            case CounterTypeId.CLIENT_HEARTBEAT:
                emit(CLIENT_HEARTBEAT, counterId, Labels.of("client_id", Long.toString(key.getLong(0))), value, sink);
                break;
            case CounterTypeId.LOCAL_SOCKET_ADDRESS:
                emit(ENDPOINT_LOCAL_ADDRESSES, counterId, Labels.of(
                    "direction", label.startsWith("snd-") ? "send" : "receive",
                    "addresses", label.substring(label.indexOf(": ") + 2)), value, sink);
                break;
            case DatapathCounters.ENGINE_TYPE_ID:
            case DatapathCounters.SENDER_TYPE_ID:
            case DatapathCounters.RECEIVER_TYPE_ID:
            case DatapathCounters.PATH_TYPE_ID:
            case DatapathCounters.PLANE_TYPE_ID:
            case DatapathCounters.IO_TYPE_ID:
            case DatapathCounters.SENDER_STREAM_TYPE_ID:
            case DatapathCounters.RECEIVER_STREAM_TYPE_ID:
                decodeDatapath(counterId, typeId, label, value, sink);
                break;
            default:
                emit(typeId >= CounterTypeId.MIN_CUSTOM_TYPE_ID ? CUSTOM : UNMAPPED, counterId,
                    Labels.of("type_id", Integer.toString(typeId), LABEL, label), value, sink);
                break;
        }
    }

    private static void decodeSystem(
        final int counterId, final DirectBuffer key, final String label, final long value, final Sink sink)
    {
        final int id = key.getInt(0);
        final int reason = id - SystemCounterDescriptor.MALFORMED_COMMAND_REASON_KEY_BASE;
        if (reason >= 0 && reason <= SystemCounters.WRONG_DIRECTION)
        {
            emit(MALFORMED_COMMANDS_BY_REASON, counterId, Labels.of("reason", SystemCounters.reasonName(reason)), value,
                sink);
            return;
        }

        final int refusal = id - SystemCounterDescriptor.IMAGE_LOGS_REFUSED_REASON_KEY_BASE;
        if (refusal >= 0 && refusal <= SystemCounters.IMAGE_LOG_CREATION_ERROR)
        {
            emit(IMAGE_LOGS_REFUSED, counterId, Labels.of("reason", SystemCounters.imageLogRefusalName(refusal)), value,
                sink);
            return;
        }

        final SystemMetric metric = SYSTEM_METRICS.get(id);
        if (null != metric)
        {
            emit(metric.family, counterId, metric.labels, value, sink);
            return;
        }

        emit(UNMAPPED, counterId, Labels.of("type_id", Integer.toString(CounterTypeId.SYSTEM_COUNTER), LABEL, label),
            value, sink);
    }

    private static void decodeStream(
        final MetricFamily family,
        final int counterId,
        final int typeId,
        final DirectBuffer key,
        final String label,
        final long value,
        final Sink sink)
    {
        final long registrationId = StreamCounterDescriptor.registrationId(key, 0);
        final int sessionId = StreamCounterDescriptor.sessionId(key, 0);
        final int streamId = StreamCounterDescriptor.streamId(key, 0);
        final Map<String, String> labels = new LinkedHashMap<>();
        labels.put("stream", Integer.toString(streamId));
        labels.put("session", Integer.toString(sessionId));
        labels.put("registration_id", Long.toString(registrationId));

        // The label is "<type>: <registrationId> <sessionId> <streamId> <channel>", a subscriber's " @<join>" after.
        final String prefix = CounterTypeId.name(typeId) + ": " + registrationId + " " + sessionId + " " + streamId +
            " ";
        if (label.startsWith(prefix) && label.length() > prefix.length())
        {
            String channel = label.substring(prefix.length());
            final int joinAt = channel.lastIndexOf(" @");
            if (CounterTypeId.SUBSCRIBER_POSITION == typeId && joinAt > 0)
            {
                channel = channel.substring(0, joinAt);
            }
            labels.put("channel", channel);
        }
        else
        {
            labels.put(LABEL, label);
        }

        emit(family, counterId, toLabels(labels), value, sink);
    }

    private static void decodeDatapath(
        final int counterId, final int typeId, final String label, final long value, final Sink sink)
    {
        // The label is "<name>: <context>", the context "engine" or key=value tokens separated by spaces.
        final int nameEnd = label.indexOf(": ");
        if (nameEnd <= 0)
        {
            emit(UNMAPPED, counterId, Labels.of("type_id", Integer.toString(typeId), LABEL, label), value, sink);
            return;
        }

        final Map<String, String> labels = new LinkedHashMap<>();
        boolean parsed = true;
        final String[] tokens = label.substring(nameEnd + 2).split(" ");
        for (int i = 0; i < tokens.length; i++)
        {
            final String token = tokens[i];
            if (0 == i && (DatapathCounters.ENGINE_TYPE_ID == typeId || DatapathCounters.PLANE_TYPE_ID == typeId ||
                DatapathCounters.IO_TYPE_ID == typeId) && "engine".equals(token))
            {
                continue;
            }

            final int equals = token.indexOf('=');
            final String labelName = equals > 0 ? CONTEXT_LABELS.get(token.substring(0, equals)) : null;
            if (null == labelName || labels.containsKey(labelName))
            {
                parsed = false;
            }
            else
            {
                labels.put(labelName, token.substring(equals + 1));
            }
        }

        final String name = label.substring(0, nameEnd) + (labels.containsKey("reason") ? REASON_SUFFIX : "");
        final MetricFamily family = DATAPATH_FAMILIES.get(datapathKey(typeId, name));
        if (null == family)
        {
            emit(UNMAPPED, counterId, Labels.of("type_id", Integer.toString(typeId), LABEL, label), value, sink);
            return;
        }

        // A label cut at the maximum length may have lost the end of its last value: keep the whole of it too.
        if (!parsed || label.getBytes(StandardCharsets.UTF_8).length >= CountersManager.MAX_LABEL_LENGTH)
        {
            labels.put(LABEL, label);
        }

        emit(family, counterId, toLabels(labels), value, sink);
    }

    private static void emit(
        final MetricFamily family, final int counterId, final Labels labels, final long value, final Sink sink)
    {
        // A counter family only takes values that a counter can have; anything else is shown as it is, unmapped.
        if (MetricFamily.Type.COUNTER == family.type() && value < 0)
        {
            sink.sample(UNMAPPED, labels.add("family", family.name()), value, counterId);
            return;
        }

        sink.sample(family, labels, family.value(value), counterId);
    }

    private static Labels toLabels(final Map<String, String> labels)
    {
        return Labels.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
    }

    private static String datapathKey(final int typeId, final String name)
    {
        return typeId + " " + name;
    }

    private static void datapath(final int typeId, final String name, final MetricFamily family)
    {
        DATAPATH_FAMILIES.put(datapathKey(typeId, name), family);
        addFamily(family);
    }

    private static void addFamily(final MetricFamily family)
    {
        if (!COUNTER_FAMILIES.contains(family))
        {
            COUNTER_FAMILIES.add(family);
        }
    }

    private static SystemMetric systemMetric(final SystemCounterDescriptor descriptor)
    {
        switch (descriptor)
        {
            case ERRORS:
                return new SystemMetric(ERRORS, Labels.EMPTY);
            case CLIENT_TIMEOUTS:
                return new SystemMetric(CLIENT_TIMEOUTS, Labels.EMPTY);
            case UNBLOCKED_PUBLICATIONS:
                return new SystemMetric(UNBLOCKED_PUBLICATIONS, Labels.EMPTY);
            case UNBLOCKED_COMMANDS:
                return new SystemMetric(UNBLOCKED_COMMANDS, Labels.EMPTY);
            case MALFORMED_COMMANDS:
                return new SystemMetric(MALFORMED_COMMANDS, Labels.EMPTY);
            case UNKNOWN_COMMANDS:
                return new SystemMetric(UNKNOWN_COMMANDS, Labels.EMPTY);
            case ERROR_RESPONSES:
                return new SystemMetric(ERROR_RESPONSES, Labels.EMPTY);
            case BYTES_CURRENTLY_MAPPED:
                return new SystemMetric(MAPPED_BYTES, Labels.EMPTY);
            case ACTIVE_CLIENTS:
                return new SystemMetric(ACTIVE_CLIENTS, Labels.EMPTY);
            case CONDUCTOR_MAX_CYCLE_TIME:
                return new SystemMetric(MAX_CYCLE_TIME, Labels.of("agent", "conductor"));
            case CONDUCTOR_CYCLE_TIME_THRESHOLD_EXCEEDED:
                return new SystemMetric(CYCLE_TIME_THRESHOLD_EXCEEDED, Labels.of("agent", "conductor"));
            case SENDER_MAX_CYCLE_TIME:
                return new SystemMetric(MAX_CYCLE_TIME, Labels.of("agent", "sender"));
            case SENDER_CYCLE_TIME_THRESHOLD_EXCEEDED:
                return new SystemMetric(CYCLE_TIME_THRESHOLD_EXCEEDED, Labels.of("agent", "sender"));
            case RECEIVER_MAX_CYCLE_TIME:
                return new SystemMetric(MAX_CYCLE_TIME, Labels.of("agent", "receiver"));
            case RECEIVER_CYCLE_TIME_THRESHOLD_EXCEEDED:
                return new SystemMetric(CYCLE_TIME_THRESHOLD_EXCEEDED, Labels.of("agent", "receiver"));
            case SEND_ENDPOINTS:
                return new SystemMetric(ENDPOINTS_OPEN, Labels.of("direction", "send"));
            case RECEIVE_ENDPOINTS:
                return new SystemMetric(ENDPOINTS_OPEN, Labels.of("direction", "receive"));
            case PUBLICATION_TAILS_LOST:
                return new SystemMetric(PUBLICATION_TAILS_LOST, Labels.EMPTY);
            case PUBLICATION_TAIL_BYTES_LOST:
                return new SystemMetric(PUBLICATION_TAIL_LOST_BYTES, Labels.EMPTY);
            case SPY_IMAGES_LAPPED:
                return new SystemMetric(SPY_IMAGES_LAPPED, Labels.EMPTY);
            case DESTINATIONS_DROPPED:
                return new SystemMetric(DESTINATIONS_DROPPED, Labels.EMPTY);
            default:
                return null;
        }
    }

    private static final class SystemMetric
    {
        private final MetricFamily family;
        private final Labels labels;

        SystemMetric(final MetricFamily family, final Labels labels)
        {
            this.family = family;
            this.labels = labels;
            addFamily(family);
        }
    }
}
