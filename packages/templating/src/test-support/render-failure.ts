import { RenderInputError } from '../render/render-error';

/** The message of the RenderInputError that `run` throws; fails the test if it throws none. */
export function renderFailure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RenderInputError);
    return (error as Error).message;
  }
  throw new Error('expected a RenderInputError');
}
