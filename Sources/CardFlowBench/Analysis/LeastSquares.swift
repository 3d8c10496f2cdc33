/// Ordinary least squares for a few regressors: `y ≈ β₀ + β₁x₁ + … + βₖxₖ`, solved through the
/// normal equations with partial pivoting (k is 1 or 2 here, so their conditioning is no issue
/// once the columns are not collinear).
public struct LeastSquares: Sendable, Hashable {
    /// β₀ (the intercept) first, then one coefficient per regressor.
    public let coefficients: [Double]
    /// Coefficient of determination, 1 − SSres/SStot (1 when every y is the same and fitted).
    public let rSquared: Double
    /// The largest |y − ŷ|.
    public let maxResidual: Double

    /// Fits the rows.
    ///
    /// - Parameters:
    ///   - rows: the regressors of each observation (all rows the same length).
    ///   - values: the observed values, one per row.
    /// - Returns: nil when there are fewer observations than unknowns or the regressors are
    ///   collinear (e.g. a size that never changes).
    public static func fit(rows: [[Double]], values: [Double]) -> LeastSquares? {
        guard let width = rows.first?.count, rows.count == values.count,
            rows.allSatisfy({ $0.count == width }), rows.count >= width + 1
        else { return nil }
        let unknowns = width + 1
        let design = rows.map { [1.0] + $0 }
        // Normal equations XᵀX β = Xᵀy as an augmented matrix.
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: unknowns + 1), count: unknowns)
        for (row, value) in zip(design, values) {
            for i in 0..<unknowns {
                for j in 0..<unknowns { matrix[i][j] += row[i] * row[j] }
                matrix[i][unknowns] += row[i] * value
            }
        }
        for column in 0..<unknowns {
            guard
                let pivot = (column..<unknowns).max(by: { abs(matrix[$0][column]) < abs(matrix[$1][column]) }),
                abs(matrix[pivot][column]) > 1e-9 * max(1, abs(matrix[column][column]))
            else { return nil }
            matrix.swapAt(column, pivot)
            for row in 0..<unknowns where row != column {
                let factor = matrix[row][column] / matrix[column][column]
                if factor == 0 { continue }
                for k in column...unknowns { matrix[row][k] -= factor * matrix[column][k] }
            }
        }
        let beta = (0..<unknowns).map { matrix[$0][unknowns] / matrix[$0][$0] }
        guard beta.allSatisfy(\.isFinite) else { return nil }
        let predicted = design.map { row in zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 } }
        let mean = values.reduce(0, +) / Double(values.count)
        let residuals = zip(values, predicted).map { $0 - $1 }
        let total = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let residual = residuals.reduce(0) { $0 + $1 * $1 }
        return LeastSquares(
            coefficients: beta, rSquared: total > 0 ? 1 - residual / total : 1,
            maxResidual: residuals.map(abs).max() ?? 0)
    }
}
