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
 * The sending end of a one-way stream for throughput runs. Called from one thread; never blocks, never allocates.
 */
public interface ThroughputPublisher extends AutoCloseable
{
    /**
     * Try to send one message.
     *
     * @param length of the message in bytes.
     * @return true if it was sent, false if the transport pushed back.
     */
    boolean offer(int length);

    /**
     * Release the resources of this end.
     */
    @Override
    void close();
}
