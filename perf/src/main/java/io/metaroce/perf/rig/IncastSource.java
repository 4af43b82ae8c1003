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
package io.metaroce.perf.rig;

/**
 * A {@link BenchSystem} that can be the sending side of an N-to-1 incast on its one-way stream.
 */
public interface IncastSource extends BenchSystem
{
    /**
     * The sending end of an incast: {@code senders} publications of the one-way stream, each from a send endpoint of
     * its own (its own local address), all to the one receive endpoint of {@link #throughputSubscriber}, offered to
     * in turn. Call it after the subscriber exists: it waits until every publication is connected.
     *
     * @param senders number of publications, at least 1.
     * @return the publisher, used by one sending thread.
     */
    ThroughputPublisher incastPublisher(int senders);
}
