import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  url: string;
  /** Every message received, as sent (headers and body). */
  received: string[];
  /** The next `count` messages are refused (a 451 after DATA), as a mail server that is down. */
  refuse(count: number): void;
  close(): Promise<void>;
}

/** A real SMTP server on loopback that keeps what it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: string[] = [];
  let refusing = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refusing > 0) {
          refusing--;
          const error = Object.assign(new Error("Mailbox unavailable, try later"), { responseCode: 451 });
          done(error);
          return;
        }
        received.push(Buffer.concat(chunks).toString("utf8"));
        done();
      });
    },
  });
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse: (count) => {
      refusing = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
