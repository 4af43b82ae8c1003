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
package io.metaroce.datapath.path;

/**
 * Callbacks of a {@link PathTable}: it decides when a path needs a probe and when its state changes; the connection
 * that owns it sends the probe and updates its counters. Called on the thread that drives the table.
 */
public interface PathHealthHandler
{
    /**
     * Send a PROBE(PATH, ackRequest) on a path now.
     *
     * @param path the path to probe.
     * @return the probeSeq the probe carries, which its PROBE_ACK will echo.
     */
    int sendPathProbe(int path);

    /**
     * A path changed state.
     *
     * @param path     whose state changed.
     * @param oldState {@link PathTable#ACTIVE}, {@link PathTable#SUSPECT} or {@link PathTable#EVICTED}.
     * @param newState likewise.
     */
    void onPathStateChange(int path, int oldState, int newState);
}
