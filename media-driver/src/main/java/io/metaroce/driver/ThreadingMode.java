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
package io.metaroce.driver;

/**
 * How the driver's three agents (conductor, sender, receiver) are mapped onto threads.
 */
public enum ThreadingMode
{
    /**
     * One thread per agent: three threads, each with its own idle strategy.
     */
    DEDICATED,

    /**
     * The conductor on one thread, the sender and receiver together on another.
     */
    SHARED_NETWORK,

    /**
     * All three agents on one thread.
     */
    SHARED,

    /**
     * No thread: the application drives all three agents through {@link MediaDriver#sharedAgentInvoker()}.
     */
    INVOKER
}
