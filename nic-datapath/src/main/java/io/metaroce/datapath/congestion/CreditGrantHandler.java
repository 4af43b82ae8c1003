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
package io.metaroce.datapath.congestion;

/**
 * Told by a {@link CreditScheduler} when it extends a sender's grant, so that the receiver can carry the new limit
 * to the sender (on the next ACK, or in a CREDIT when no ACK is due).
 */
@FunctionalInterface
public interface CreditGrantHandler
{
    /**
     * A client's grant limit grew.
     *
     * @param client     the client id {@link CreditScheduler#add(long)} returned.
     * @param grantLimit the new cumulative grant limit in payload bytes.
     */
    void onGrant(int client, long grantLimit);
}
