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
package io.metaroce.systemtest.netns;

/**
 * A harness operation failed: {@code netns.sh} exited with an error or timed out, or a process inside a namespace did
 * not do what was awaited in time. The message carries the command and its output.
 */
public final class NetnsException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a message.
     *
     * @param message what failed, with the output that tells why.
     */
    public NetnsException(final String message)
    {
        super(message);
    }

    /**
     * A failure with a message and a cause.
     *
     * @param message what failed.
     * @param cause   why.
     */
    public NetnsException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
